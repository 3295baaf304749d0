import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { SqsDeadLetterQueue } from '../../lambdas/adapters/sqs/sqs-dead-letter-queue';
import { redriveDeadLetters } from '../../lambdas/mail/redrive-dead-letters';
import { sesDeadLetterMail, sesRawPrefix, type SesReceiptEvent } from '../../lambdas/inbound/ses-events';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';

const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/ParserDeadLetters';
const sqs = mockClient(SQSClient);
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());
beforeEach(() => sqs.reset());

/** The event Lambda put in the dead-letter queue: SES's receipt event, with the original receipt time. */
function deadLetter(messageId: string, recipient: string, receivedAt: Date) {
  const event: SesReceiptEvent = {
    Records: [{ ses: { mail: { messageId, timestamp: receivedAt.toISOString() }, receipt: { recipients: [recipient] } } }],
  };
  return { Body: JSON.stringify(event), ReceiptHandle: `receipt-${messageId}`, MessageId: `sqs-${messageId}` };
}

/** A queue holding these messages once: the next receive finds it empty, as after a delete. */
function queueHolding(...messages: ReturnType<typeof deadLetter>[]) {
  sqs.on(ReceiveMessageCommand).resolvesOnce({ Messages: messages }).resolves({ Messages: [] });
}

async function mailbox() {
  const { apiKey } = await service.account();
  const email = (await json(await service.createEmail(apiKey, {}))).data;
  const messages = async () => (await json(await service.request(`/v1/emails/${email.id}/messages`, { key: apiKey }))).data;
  return { apiKey, email, messages };
}

const redrive = () => redriveDeadLetters({ ...service.runtime.services, queue: new SqsDeadLetterQueue(new SQSClient({ region: 'us-east-1' }), queueUrl), mailOf: sesDeadLetterMail });
const raw = (subject: string) => Buffer.from(`From: a@example.org\r\nTo: x@example.net\r\nSubject: ${subject}\r\n\r\nhello\r\n`);

describe('redriving mail the SES parser dead-lettered', () => {
  it('delivers a fresh mail once, with its original receipt time, and removes it from the queue', async () => {
    const { email, messages } = await mailbox();
    const receivedAt = new Date(service.clock.now().getTime() - 5 * 60 * 1000);
    await service.runtime.services.blobs.put(`${sesRawPrefix}ses-fresh-0001`, raw('late but fresh'));
    queueHolding(deadLetter('ses-fresh-0001', email.address, receivedAt));

    await expect(redrive()).resolves.toEqual({ delivered: 1, expired: 0, failed: 0 });
    const [message, ...others] = await messages();
    expect(others).toEqual([]);
    expect(message).toMatchObject({ subject: 'late but fresh', received_at: receivedAt.toISOString() });
    expect(message.expires_at).toBe(new Date(receivedAt.getTime() + 15 * 60 * 1000).toISOString());
    expect(sqs.commandCalls(DeleteMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: queueUrl, ReceiptHandle: 'receipt-ses-fresh-0001' },
    ]);

    // The queue no longer holds it: a second redrive delivers nothing more.
    sqs.reset();
    queueHolding();
    await expect(redrive()).resolves.toEqual({ delivered: 0, expired: 0, failed: 0 });
    expect(await messages()).toHaveLength(1);
  });

  it('does not resurrect a mail whose 15 minutes have passed, and drops its raw object', async () => {
    const { email, messages } = await mailbox();
    const receivedAt = new Date(service.clock.now().getTime() - 15 * 60 * 1000);
    const rawKey = `${sesRawPrefix}ses-expired-0001`;
    await service.runtime.services.blobs.put(rawKey, raw('too late'));
    queueHolding(deadLetter('ses-expired-0001', email.address, receivedAt));

    await expect(redrive()).resolves.toEqual({ delivered: 0, expired: 1, failed: 0 });
    expect(await messages()).toEqual([]);
    expect(await service.runtime.services.blobs.get(rawKey)).toBeUndefined();
    expect(sqs.commandCalls(DeleteMessageCommand)).toHaveLength(1);
  });

  it('leaves a mail that fails again in the queue, and goes on with the others', async () => {
    const { email, messages } = await mailbox();
    const now = service.clock.now();
    await service.runtime.services.blobs.put(`${sesRawPrefix}ses-ok-0001`, raw('second in line'));
    queueHolding(deadLetter('ses-missing-0001', email.address, now), deadLetter('ses-ok-0001', email.address, now));

    await expect(redrive()).resolves.toEqual({ delivered: 1, expired: 0, failed: 1 });
    expect((await messages()).map((message: { subject: string }) => message.subject)).toEqual(['second in line']);
    expect(sqs.commandCalls(DeleteMessageCommand).map((call) => call.args[0].input.ReceiptHandle)).toEqual(['receipt-ses-ok-0001']);
    expect(service.logger.lines).toContainEqual({ level: 'warn', message: 'dead letter not redriven', error: 'Error' });
  });
});
