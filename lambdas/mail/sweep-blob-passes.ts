import { BlobsNotDeleted } from '../core/errors';
import { mailIdTime } from '../core/ids';
import { workPool } from '../core/work-pool';
import { rawMailPrefix } from './raw-mail-prefix';
import type { SweepWork } from './sweep-work';

/** Where the blobs of received mail live, under their mail id (`mail/<mail id>/…`). */
const mailPrefix = 'mail/';

/**
 * Blobs under `mail/` of mail received at or before the cutoff: those of expired messages and of
 * mail whose messages were never written alike. Mail ids begin with the receipt time in
 * milliseconds (13 digits until the year 2286), so the listing, in key order, is in receipt
 * order: it stops at the first key of younger mail and never reads the rest of `mail/`. Returns
 * the receipt time of the oldest expired mail whose blobs are left (Infinity when none is).
 */
export async function sweepMailBlobs(cutoff: number, work: SweepWork): Promise<{ deleted: number; oldestLeft: number }> {
  const deleter = batchedDeletes(work);
  let oldestLeft = Infinity;
  let listed = 0;
  for await (const { key } of work.deps.blobs.list(mailPrefix)) {
    const received = mailIdTime(mailIdOf(key));
    if (received === undefined) continue;
    if (received > cutoff) break;
    if (listed >= work.limits.mailBlobs || deleter.stopped() || !work.inTime()) {
      oldestLeft = received;
      break;
    }
    listed += 1;
    await deleter.add(key);
  }
  const { deleted, left } = await deleter.finish();
  for (const key of left) oldestLeft = Math.min(oldestLeft, mailIdTime(mailIdOf(key)) ?? oldestLeft);
  return { deleted, oldestLeft };
}

/**
 * Raw mail under `inbound/` written before the cutoff: what a failed or dead-lettered ingest
 * left (a delivered mail's raw object goes with its messages). SES names it by its message id,
 * which carries no time, so it is judged by the time storage wrote it. `inbound/` holds every
 * mail of the last quarter hour, so a run looks at a bounded slice and the next goes on after it.
 */
export async function sweepInbound(cutoff: number, after: string | undefined, work: SweepWork): Promise<{ deleted: number; after?: string }> {
  const deleter = batchedDeletes(work);
  let looked = 0;
  let last: string | undefined;
  let reachedEnd = true;
  for await (const { key, written } of work.deps.blobs.list(rawMailPrefix, after === undefined ? {} : { startAfter: after })) {
    if (looked >= work.limits.inboundKeys || deleter.stopped() || !work.inTime()) {
      reachedEnd = false;
      break;
    }
    looked += 1;
    last = key;
    if (written.getTime() < cutoff) await deleter.add(key);
  }
  const { deleted } = await deleter.finish();
  return { deleted, ...(reachedEnd ? {} : { after: last ?? after }) };
}

/** Keys a listing hands over, deleted a batch at a time with the run's batches in flight. */
function batchedDeletes(work: SweepWork) {
  const pool = workPool(work.limits.concurrency, (error) => work.failures.push(error));
  const left: string[] = [];
  let deleted = 0;
  let stopped = false;
  let batch: string[] = [];
  const flush = async () => {
    const keys = batch;
    batch = [];
    await pool.add(async () => {
      const failed = await deleteBlobs(keys, work, () => (stopped = true));
      deleted += keys.length - failed.size;
      left.push(...failed);
    });
  };
  return {
    /** True once a call failed as a whole: the pass starts no further batch. */
    stopped: () => stopped,
    async add(key: string): Promise<void> {
      batch.push(key);
      if (batch.length === work.limits.batch) await flush();
    },
    /** Deletes what is collected, waits for every batch, and gives the count deleted and the keys left. */
    async finish(): Promise<{ deleted: number; left: string[] }> {
      if (batch.length > 0) await flush();
      await pool.settled();
      return { deleted, left };
    },
  };
}

/**
 * Deletes blobs in one batch and returns the keys left in place. Keys storage refused one by one
 * are recorded as a failure of the run, and the pass goes on; a failure of the whole call is
 * recorded as well and stops the pass (`stop`): the next batches would only fail the same way.
 */
export async function deleteBlobs(keys: string[], work: SweepWork, stop: () => void): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  try {
    await work.deps.blobs.deleteMany(keys);
    return new Set();
  } catch (error) {
    work.failures.push(error);
    if (error instanceof BlobsNotDeleted && error.cause === undefined) return new Set(error.failures.map((failure) => failure.key));
    stop();
    return new Set(error instanceof BlobsNotDeleted ? error.failures.map((failure) => failure.key) : keys);
  }
}

function mailIdOf(key: string): string {
  return key.split('/')[1] ?? '';
}
