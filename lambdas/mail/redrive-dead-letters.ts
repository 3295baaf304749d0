import type { DeadLetterQueue } from '../core/ports/dead-letter-queue';
import { expiredBeforeIngest, ingestMail, type IngestDeps, type ReceivedMail } from './ingest-mail';

export interface RedriveDeps extends IngestDeps {
  queue: DeadLetterQueue;
  /**
   * The received mail a dead letter's body stands for. The queue holds what the failed function
   * was invoked with (an SES event for the parser), and its shape belongs to that entry point.
   */
  mailOf(body: string): ReceivedMail;
}

export interface RedriveOutcome {
  /** Mail delivered now, as messages to its active addresses. */
  delivered: number;
  /** Mail whose 15 minutes had passed: dropped with its raw object, never delivered. */
  expired: number;
  /** Mail that failed again: left in the queue, which shows it again later. */
  failed: number;
}

/**
 * Re-ingests mail the SES parser could not ingest (SES had already accepted it, so nobody else
 * will retry it). Each mail keeps its original receipt time: one whose 15 minutes have passed is
 * dropped, raw object included, instead of resurrected (contract: a message expires 15 minutes
 * after receipt); a fresh one is delivered once, and only then removed from the queue.
 */
export async function redriveDeadLetters(deps: RedriveDeps): Promise<RedriveOutcome> {
  const outcome: RedriveOutcome = { delivered: 0, expired: 0, failed: 0 };
  for (let batch = await deps.queue.receive(); batch.length > 0; batch = await deps.queue.receive()) {
    for (const letter of batch) {
      try {
        const mail = deps.mailOf(letter.body);
        if (expiredBeforeIngest(mail, deps)) {
          await deps.blobs.delete(mail.rawKey);
          outcome.expired += 1;
        } else {
          await ingestMail(mail, deps);
          outcome.delivered += 1;
        }
        await deps.queue.delete(letter.receipt);
      } catch (error) {
        deps.logger.warn('dead letter not redriven', { error: (error as Error).name });
        outcome.failed += 1;
      }
    }
  }
  return outcome;
}
