/**
 * The sweeper's schedule against AWS call times that cannot be measured here (docs/limits.md):
 * the real sweep (`sweepExpired`, its passes, batches and deadline) over stores that answer
 * after the stated time per call, as DynamoDB and S3 would. It checks that the arithmetic of the
 * limits holds for the code as written: batches in flight, calls one after another within a
 * batch, the deadline honoured.
 *
 *   node --import tsx bench/sweep-rate.ts
 */
import { setTimeout as delay } from 'node:timers/promises';
import { jsonLogger } from '../lambdas/adapters/json-logger';
import { systemClock } from '../lambdas/adapters/system-clock';
import type { BlobStore, ListedBlob } from '../lambdas/core/ports/blob-store';
import type { ExpiringMessage, MessageStore } from '../lambdas/core/ports/message-store';
import { sweepExpired } from '../lambdas/mail/sweep-expired';

interface CallTimes {
  /** One BatchWriteItem of 25 deletes. */
  batchWriteMs: number;
  /** One DeleteObjects of 1,000 keys (shorter calls in proportion). */
  deleteObjectsMs: number;
  /** One ListObjectsV2 page of 1,000 keys. */
  listPageMs: number;
}

const ttlSeconds = 900;
/** The deployed sweeper's time to start work: its 55-s timeout less 15 s for batches in flight. */
const budgetMs = 40_000;

/** `mails` expired mails, each one message, its raw mail under `inbound/` and one blob under `mail/`. */
function expiredMail(mails: number, now: number): ExpiringMessage[] {
  const cutoff = now - ttlSeconds * 1000;
  return Array.from({ length: mails }, (_, n) => {
    const received = cutoff - 60_000 + Math.floor((n * 60_000) / mails);
    const mailId = `${received}-${String(n).padStart(12, '0')}`;
    return { messageId: `msg_${n}`, mailId, rawKey: `inbound/ses-${n}`, expiresAt: new Date(received + ttlSeconds * 1000).toISOString() };
  });
}

function stores(expired: ExpiringMessage[], times: CallTimes): { messages: MessageStore; blobs: BlobStore } {
  const messages: Pick<MessageStore, 'expiring' | 'deleteMany'> = {
    expiring: async (_from, _until, limit) =>
      expired.length > limit ? { messages: expired.slice(0, limit), moreFrom: expired[limit]!.expiresAt } : { messages: expired },
    deleteMany: async (ids) => {
      for (let start = 0; start < ids.length; start += 25) await delay(times.batchWriteMs);
    },
  };
  const blobs: Pick<BlobStore, 'list' | 'deleteMany'> = {
    async *list(prefix): AsyncIterable<ListedBlob> {
      if (prefix !== 'mail/') return;
      for (let start = 0; start < expired.length; start += 1000) {
        await delay(times.listPageMs);
        for (const message of expired.slice(start, start + 1000)) yield { key: `mail/${message.mailId}/att_1`, written: new Date(0) };
      }
    },
    deleteMany: async (keys) => {
      await delay((times.deleteObjectsMs * keys.length) / 1000);
    },
  };
  return { messages: messages as MessageStore, blobs: blobs as BlobStore };
}

async function measure(label: string, mails: number, times: CallTimes): Promise<string> {
  const now = Date.now();
  const { messages, blobs } = stores(expiredMail(mails, now), times);
  const quiet = jsonLogger('silent', () => undefined);
  const deadline = new Date(now + budgetMs);
  const cpu = process.cpuUsage();
  const result = await sweepExpired({ messages, blobs, clock: systemClock, logger: quiet, messageTtlSeconds: ttlSeconds, env: 'bench' }, { deadline });
  const seconds = (Date.now() - now) / 1000;
  const used = process.cpuUsage(cpu);
  const overrun = Math.max(0, Date.now() - deadline.getTime()) / 1000;
  return `| ${label} | ${mails.toLocaleString('en')} | ${times.batchWriteMs} / ${times.deleteObjectsMs} / ${times.listPageMs} | ${result.messages.toLocaleString('en')} | ${result.blobs.toLocaleString('en')} | ${seconds.toFixed(1)} s | ${overrun.toFixed(1)} s | ${Math.round(result.messages / seconds).toLocaleString('en')} | ${((used.user + used.system) / 1e6).toFixed(2)} s |`;
}

async function main(): Promise<void> {
  const fast = { batchWriteMs: 20, deleteObjectsMs: 300, listPageMs: 50 };
  const slow = { batchWriteMs: 60, deleteObjectsMs: 1000, listPageMs: 100 };
  console.log('| case | expired mails | call ms (BatchWriteItem / DeleteObjects / list page) | messages deleted | mail/ blobs deleted | run | past the deadline | messages/s | CPU |');
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|');
  console.log(await measure('a minute at 1,000 mails/s, fast calls', 60_000, fast));
  console.log(await measure('a minute at 1,000 mails/s, slow calls', 60_000, slow));
  console.log(await measure('a backlog, slow calls', 150_000, slow));
}

void main();
