/** One event the parser gave up on, as the dead-letter queue holds it. */
export interface DeadLetter {
  /** The SES receipt event, as JSON: Lambda puts the original event in the message body. */
  body: string;
  /** What removes it from the queue. */
  receipt: string;
}

/**
 * The parser's dead-letter queue (SQS in AWS), read by the operator's redrive. A letter stays
 * queued until deleted by its receipt, so a redrive that fails part-way loses none.
 */
export interface DeadLetterQueue {
  /** Up to a batch of dead letters, hidden from other readers for a while; empty when none is left. */
  receive(): Promise<DeadLetter[]>;
  /** Removes a letter once its event is handled. */
  delete(receipt: string): Promise<void>;
}
