import type { Clock } from '../core/clock';
import { mailIdTime } from '../core/ids';
import type { Logger } from '../core/logger';
import type { BlobStore, ExpiringMessage, MessageStore } from '../core/mail-ports';
import { sesRawPrefix } from './ses-events';

export interface SweepDeps {
  messages: MessageStore;
  blobs: BlobStore;
  clock: Clock;
  logger: Logger;
  messageTtlSeconds: number;
}

/** How far back the expiry index is read on each sweep: generous against a stopped sweeper. */
const lookbackMs = 2 * 60 * 60 * 1000;
/** Blobs of a mail whose messages were never written are removed this long after they expired. */
const orphanGraceMs = 10 * 60 * 1000;

/**
 * Deletes what has expired (contract: private content expires 15 minutes after receipt; DESIGN:
 * a sweeper deletes expired blobs within minutes). Expired messages are found through the expiry
 * index; their blobs go first and their items last, so a crash in between leaves only expired
 * items that the next sweep finishes. Blobs of mail that never became messages are aged out by
 * the receipt time in their mail id; raw mail SES stored under `inbound/` (named by SES's message
 * id, which carries no time) by the time the storage wrote it.
 */
export async function sweepExpired(deps: SweepDeps): Promise<{ messages: number; mails: number; orphans: number }> {
  const now = deps.clock.now();
  const expired = await deps.messages.expiring(new Date(now.getTime() - lookbackMs), now);
  const byMail = new Map<string, ExpiringMessage[]>();
  for (const message of expired) byMail.set(message.mailId, [...(byMail.get(message.mailId) ?? []), message]);

  for (const [mailId, messages] of byMail) {
    await deletePrefix(`mail/${mailId}/`, deps.blobs);
    for (const rawKey of new Set(messages.map((message) => message.rawKey))) await deps.blobs.delete(rawKey);
    for (const message of messages) await deps.messages.delete(message.messageId);
  }
  const orphans = await deleteOrphans(now, deps);
  if (expired.length > 0 || orphans > 0) {
    deps.logger.info('swept expired mail', { messages: expired.length, mails: byMail.size, orphan_blobs: orphans });
  }
  return { messages: expired.length, mails: byMail.size, orphans };
}

async function deletePrefix(prefix: string, blobs: BlobStore): Promise<void> {
  const keys: string[] = [];
  for await (const key of blobs.list(prefix)) keys.push(key);
  for (const key of keys) await blobs.delete(key);
}

/**
 * Blobs whose mail was received longer ago than a message lives, plus a grace: under `mail/` by
 * the time in the mail id; under `inbound/` (a failed or dead-lettered ingest in AWS; a delivered
 * mail's raw object is gone with its messages already) by the time the object was written.
 */
async function deleteOrphans(now: Date, deps: SweepDeps): Promise<number> {
  const cutoff = now.getTime() - deps.messageTtlSeconds * 1000 - orphanGraceMs;
  const stale: string[] = [];
  for await (const key of deps.blobs.list('mail/')) {
    const received = mailIdTime(key.split('/')[1] ?? '');
    if (received !== undefined && received < cutoff) stale.push(key);
  }
  for await (const key of deps.blobs.list(sesRawPrefix, { modifiedBefore: new Date(cutoff) })) stale.push(key);
  for (const key of stale) await deps.blobs.delete(key);
  return stale.length;
}
