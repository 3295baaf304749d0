import type { Clock } from '../core/ports/clock';
import type { Logger } from '../core/ports/logger';
import type { BlobStore } from '../core/ports/blob-store';
import type { MessageStore } from '../core/ports/message-store';

/*
 * The work of one sweep run, as its passes share it: a module of its own, below both the run
 * (`sweep-expired.ts`) and its blob passes (`sweep-blob-passes.ts`), so that neither imports the other back.
 */

export interface SweepDeps {
  messages: MessageStore;
  blobs: BlobStore;
  clock: Clock;
  logger: Logger;
  messageTtlSeconds: number;
  /** The stage, as the dimension of the sweep's metric. */
  env: string;
}

/** What bounds one run, so that a backlog is worked off over several runs and none times out. */
export interface SweepLimits {
  /** Expired messages one run deletes at most. */
  messages: number;
  /** Blobs under `mail/` one run deletes at most. */
  mailBlobs: number;
  /** Keys of `inbound/` one run looks at, going on from where the run before stopped. */
  inboundKeys: number;
  /** Keys of one batch delete of blobs (S3 takes 1,000 a call), messages of one batch of items. */
  batch: number;
  /** Batches in flight at once, in each of the run's three passes. */
  concurrency: number;
}

/** What the passes of one run share. */
export interface SweepWork {
  deps: SweepDeps;
  limits: SweepLimits;
  /** True while a new batch may start: the deadline has not passed. */
  inTime(): boolean;
  failures: unknown[];
}
