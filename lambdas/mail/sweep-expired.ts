import { workPool } from '../core/work-pool';
import { secondsMetric } from './metrics';
import { deleteBlobs, sweepInbound, sweepMailBlobs } from './sweep-blob-passes';
import type { SweepDeps, SweepLimits, SweepWork } from './sweep-work';

export const defaultSweepLimits: SweepLimits = { messages: 100_000, mailBlobs: 200_000, inboundKeys: 100_000, batch: 1_000, concurrency: 6 };

export interface SweepRun {
  /** No batch starts after this moment of `deps.clock`: the function's timeout less what a batch in flight may take. */
  deadline: Date;
  /** The last `inbound/` key the run before looked at, when it stopped short of the end. */
  inboundAfter?: string;
  limits?: Partial<SweepLimits>;
}

export interface SweepResult {
  /** Expired messages deleted. */
  messages: number;
  /** Blobs of expired mail deleted under `mail/`. */
  blobs: number;
  /** Raw mail that a failed ingest left under `inbound/`, deleted by its age. */
  orphans: number;
  /** How long ago the oldest expired message still present (item or blobs) expired; 0 when none is. */
  oldestUnsweptSeconds: number;
  /** Where this run's look at `inbound/` stopped, for the next run; absent when it reached the end. */
  inboundAfter?: string;
}

/** How far back the expiry index is read on each sweep: generous against a stopped sweeper. */
const lookbackMs = 2 * 60 * 60 * 1000;
/** Raw mail no ingest removed goes this long after its messages would have expired: a dead letter is redriven within minutes. */
const orphanGraceMs = 10 * 60 * 1000;

/**
 * Deletes what has expired (contract: private content expires 15 minutes after receipt; DESIGN:
 * a sweeper deletes expired blobs within minutes), in batches run side by side, within a
 * deadline and counts per run, so a backlog is worked off over runs and no run times out. Three
 * passes run at once, each finding again whatever an earlier run left: blobs under `mail/`, by
 * the receipt time in their keys; expired messages, through the expiry index (a message's raw
 * mail under `inbound/` goes before its item, as nothing else would find that key but its age);
 * and raw mail under `inbound/` that no ingest removed, by its age. A batch that failed makes the
 * run throw once the others are done; the run's figures and the age of the oldest expired
 * message left are logged (and published as a metric) either way.
 */
export async function sweepExpired(deps: SweepDeps, run: SweepRun): Promise<SweepResult> {
  const now = deps.clock.now().getTime();
  const work: SweepWork = { deps, limits: { ...defaultSweepLimits, ...run.limits }, inTime: () => deps.clock.now() < run.deadline, failures: [] };
  const ttlMs = deps.messageTtlSeconds * 1000;
  const [blobs, items, inbound] = await Promise.all([
    sweepMailBlobs(now - ttlMs, work),
    sweepMessages(now, work),
    sweepInbound(now - ttlMs - orphanGraceMs, run.inboundAfter, work),
  ]);

  const end = deps.clock.now();
  const oldestLeft = Math.min(blobs.oldestLeft + ttlMs, items.oldestLeft);
  const result: SweepResult = {
    messages: items.deleted,
    blobs: blobs.deleted,
    orphans: inbound.deleted,
    oldestUnsweptSeconds: oldestLeft === Infinity ? 0 : Math.max(0, Math.floor((end.getTime() - oldestLeft) / 1000)),
    ...(inbound.after === undefined ? {} : { inboundAfter: inbound.after }),
  };
  deps.logger.info('sweep finished', {
    messages: result.messages,
    mail_blobs: result.blobs,
    orphan_blobs: result.orphans,
    oldest_unswept_seconds: result.oldestUnsweptSeconds,
    ...secondsMetric('OldestUnsweptSeconds', result.oldestUnsweptSeconds, end, deps.env),
  });
  if (work.failures.length > 0) {
    deps.logger.error('sweep left work undone', { failed_batches: work.failures.length, errors: [...new Set(work.failures.map(nameOf))] });
    throw work.failures.length === 1 ? work.failures[0] : new AggregateError(work.failures, `${work.failures.length} batches of the sweep failed`);
  }
  return result;
}

/**
 * Expired messages, a batch at a time: their raw mail under `inbound/` (where SES and the local
 * SMTP intake alike keep it), then the items of those whose raw mail is gone.
 * Returns the expiry of the oldest message left (Infinity when none is).
 */
async function sweepMessages(now: number, work: SweepWork): Promise<{ deleted: number; oldestLeft: number }> {
  const { messages: expired, moreFrom } = await work.deps.messages.expiring(new Date(now - lookbackMs), new Date(now), work.limits.messages);
  const swept = new Set<string>();
  let stopped = false;
  const pool = workPool(work.limits.concurrency, (error) => {
    stopped = true;
    work.failures.push(error);
  });
  for (let start = 0; start < expired.length && !stopped && work.inTime(); start += work.limits.batch) {
    const batch = expired.slice(start, start + work.limits.batch);
    await pool.add(async () => {
      const rawKeys = [...new Set(batch.map((message) => message.rawKey))];
      const rawLeft = await deleteBlobs(rawKeys, work, () => (stopped = true));
      const gone = batch.filter((message) => !rawLeft.has(message.rawKey));
      await work.deps.messages.deleteMany(gone.map((message) => message.messageId));
      for (const message of gone) swept.add(message.messageId);
    });
  }
  await pool.settled();
  const left = expired.find((message) => !swept.has(message.messageId));
  return {
    deleted: swept.size,
    oldestLeft: Math.min(left ? Date.parse(left.expiresAt) : Infinity, moreFrom ? Date.parse(moreFrom) : Infinity),
  };
}

function nameOf(error: unknown): string {
  return (error as Error | undefined)?.name ?? 'unknown';
}
