import { domainMemoryMs } from '../../lambdas/core/recipients';
import { sesRawPrefix } from '../../lambdas/inbound/ses-events';
import { createSesParser } from '../../lambdas/inbound/ses-parser';
import { startTestService, type TestService } from '../support/local-service';
import { dynamoDbCalls } from '../support/dynamodb-calls';
import { json } from '../support/json';
import { sendMail, sendRaw, smtpDialogue } from '../support/smtp-client';

let service: TestService;
const calls = dynamoDbCalls();
let apiKey: string;
let emailId: string;
let messageId: string;

const total = (counted: Record<string, number>) => Object.values(counted).reduce((sum, count) => sum + count, 0);

beforeAll(async () => {
  service = await startTestService({}, { instrumentDynamoDb: (client) => calls.instrument(client) });
  ({ apiKey } = await service.account('paid'));
  const email = (await json(await service.createEmail(apiKey, { local_part: 'call-budget' }))).data;
  emailId = email.id;
  await sendMail(service.runtime.smtpPort, { from: 'shop@example.org', to: email.address, subject: 'budget', text: 'hello' });
  const listing = await json(await service.request(`/v1/emails/${emailId}/messages`, { key: apiKey }));
  messageId = listing.data[0].id;
});
afterAll(() => service.close());

describe('the call budget of an authenticated read (DESIGN: request flow 6)', () => {
  it.each([
    ['GET /v1/emails/{id}', () => `/v1/emails/${emailId}`, { GetItemCommand: 2, UpdateItemCommand: 1 }],
    ['GET /v1/emails/{id}/messages', () => `/v1/emails/${emailId}/messages`, { GetItemCommand: 2, UpdateItemCommand: 1, QueryCommand: 1 }],
    ['GET /v1/messages/{id}', () => `/v1/messages/${messageId}`, { GetItemCommand: 2, UpdateItemCommand: 1 }],
  ])('%s makes the key lookup, one allowance write and the resource reads: at most 4 calls', async (_route, path, expected) => {
    calls.take();
    const response = await service.request(path(), { key: apiKey });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const counted = calls.take();
    expect(counted).toEqual(expected);
    expect(total(counted)).toBeLessThanOrEqual(4);
  });
});

describe('the call budget of a received mail over SMTP', () => {
  it('reads the registry then the email at RCPT TO, the domain again with any live earlier copy at the end of DATA, and writes one message item: 4 calls', async () => {
    const address = (await json(await service.createEmail(apiKey, { local_part: 'call-budget-mail' }))).data.address;
    calls.take();
    await sendMail(service.runtime.smtpPort, { from: 'shop@example.org', to: address, subject: 'budget', text: 'hello' });
    const counted = calls.take();
    expect(counted).toEqual({ BatchGetItemCommand: 2, GetItemCommand: 1, PutItemCommand: 1 });
    expect(total(counted)).toBeLessThanOrEqual(4);
  });

  it('a further mail to the same address is answered at RCPT TO from what the intake found before: 2 calls', async () => {
    const address = (await json(await service.createEmail(apiKey, { local_part: 'call-budget-next' }))).data.address;
    await sendMail(service.runtime.smtpPort, { from: 'shop@example.org', to: address, subject: 'first', text: 'hello' });
    calls.take();
    await sendMail(service.runtime.smtpPort, { from: 'shop@example.org', to: address, subject: 'second', text: 'hello again' });
    expect(calls.take()).toEqual({ BatchGetItemCommand: 1, PutItemCommand: 1 });
    // Past the domain's window its switch is read again at RCPT TO; the address's email is still known.
    service.clock.advance(domainMemoryMs);
    try {
      await sendMail(service.runtime.smtpPort, { from: 'shop@example.org', to: address, subject: 'third', text: 'later' });
    } finally {
      service.clock.advance(-domainMemoryMs);
    }
    expect(calls.take()).toEqual({ BatchGetItemCommand: 2, PutItemCommand: 1 });
  });

  it('the same mail sent again within its lifetime finds the live copy and writes nothing: 1 call', async () => {
    const address = (await json(await service.createEmail(apiKey, { local_part: 'call-budget-again' }))).data.address;
    const raw = `From: shop@example.org\r\nTo: ${address}\r\nSubject: again\r\n\r\nhello\r\n`;
    await sendRaw(service.runtime.smtpPort, { from: 'shop@example.org', to: [address] }, raw);
    calls.take();
    await sendRaw(service.runtime.smtpPort, { from: 'shop@example.org', to: [address] }, raw);
    expect(calls.take()).toEqual({ BatchGetItemCommand: 1 });
  });

  it('delivers nothing to an address whose reservation ended between RCPT TO and the end of DATA', async () => {
    const email = (await json(await service.createEmail(apiKey, { local_part: 'call-budget-late' }))).data;
    const { say, close } = smtpDialogue(service.runtime.smtpPort);
    expect(await say()).toMatch(/^220/);
    expect(await say('EHLO test.example')).toMatch(/^250/);
    expect(await say('MAIL FROM:<shop@example.org>')).toMatch(/^250/);
    expect(await say(`RCPT TO:<${email.address}>`)).toMatch(/^250/);
    // The reservation ends after the recipient was accepted, before the message is complete.
    service.clock.advance(31 * 24 * 60 * 60 * 1000);
    try {
      expect(await say('DATA')).toMatch(/^354/);
      expect(await say('Subject: late\r\n\r\ntoo late\r\n.')).toMatch(/^250/);
      await say('QUIT');
    } finally {
      close();
      service.clock.advance(-31 * 24 * 60 * 60 * 1000);
    }
    const listing = await json(await service.request(`/v1/emails/${email.id}/messages`, { key: apiKey }));
    expect(listing.data).toEqual([]);
  });
});

describe('the call budget of a received mail in AWS (the SES parser)', () => {
  it('reads the registry, then the domain, the email and any live earlier copy together, and writes one message item: 3 calls; 2 for an address the instance has seen', async () => {
    const address = (await json(await service.createEmail(apiKey, { local_part: 'call-budget-ses' }))).data.address;
    const parse = createSesParser(() => service.runtime.services);
    const receive = async (sesId: string) => {
      await service.runtime.services.blobs.put(`${sesRawPrefix}${sesId}`, Buffer.from(`Subject: ${sesId}\r\n\r\nhello\r\n`));
      calls.take();
      const { messageIds } = await parse({
        Records: [{ ses: { mail: { messageId: sesId, timestamp: service.clock.now().toISOString() }, receipt: { recipients: [address] } } }],
      });
      expect(messageIds).toHaveLength(1);
      return calls.take();
    };
    expect(await receive('budget-ses-0001')).toEqual({ BatchGetItemCommand: 2, PutItemCommand: 1 });
    expect(await receive('budget-ses-0002')).toEqual({ BatchGetItemCommand: 1, PutItemCommand: 1 });
  });
});
