import { CreateQueueCommand, SendMessageCommand, SQSClient, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { startFauxqs } from '../fauxqs-thread';
import { localNaming, type StackQueue } from './template';

export interface StackQueues {
  /** The SQS emulator's endpoint (fauxqs). */
  endpoint: string;
  /** The emulator's URL of a template queue, from its ARN or any URL that ends in its name. */
  localUrl(arnOrUrl: string): string | undefined;
  /** Sends a message as an AWS service does (Lambda to a dead-letter queue): the caller has judged it. */
  send(queueArn: string, body: string, attributes: Record<string, MessageAttributeValue>): Promise<void>;
  close(): Promise<void>;
}

/**
 * The template's SQS queues, with their attributes (retention, visibility...), in fauxqs in a
 * thread of this process. Nothing reaches them but through a function's IAM-enforcing endpoint,
 * the stack's own Lambda service (a dead-letter queue) or the operator CLI.
 */
export async function startQueues(queues: StackQueue[]): Promise<StackQueues> {
  const fauxqs = await startFauxqs();
  const client = new SQSClient({ endpoint: fauxqs.endpoint, region: localNaming.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const urls = new Map<string, string>();
  for (const queue of queues) {
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: queue.name, Attributes: queue.attributes }));
    urls.set(queue.name, QueueUrl!);
  }
  const localUrl = (arnOrUrl: string) => urls.get(arnOrUrl.split(/[:/]/).filter(Boolean).at(-1) ?? '');
  return {
    endpoint: fauxqs.endpoint,
    localUrl,
    send: async (queueArn, body, attributes) => {
      const url = localUrl(queueArn);
      if (!url) throw new Error(`no queue ${queueArn} in the template`);
      await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body, MessageAttributes: attributes }));
    },
    close: async () => {
      client.destroy();
      await fauxqs.close();
    },
  };
}
