import { DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetter, DeadLetterQueue } from '../../core/ports/dead-letter-queue';

/** How long a received dead letter stays hidden from other readers while it is redriven. */
const visibilitySeconds = 120;

/** The parser's dead-letter queue in SQS: Lambda puts each failed event there as the message body. */
export class SqsDeadLetterQueue implements DeadLetterQueue {
  constructor(
    private readonly client: Pick<SQSClient, 'send'>,
    private readonly queueUrl: string,
  ) {}

  async receive(): Promise<DeadLetter[]> {
    const { Messages } = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        VisibilityTimeout: visibilitySeconds,
      }),
    );
    return (Messages ?? []).flatMap((message) =>
      message.Body !== undefined && message.ReceiptHandle !== undefined ? [{ body: message.Body, receipt: message.ReceiptHandle }] : [],
    );
  }

  async delete(receipt: string): Promise<void> {
    await this.client.send(new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receipt }));
  }
}
