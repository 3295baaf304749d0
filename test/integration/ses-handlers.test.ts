import { createRecipientFilter } from '../../lambdas/inbound/recipient-filter';
import { createSesParser } from '../../lambdas/inbound/ses-parser';
import { sesRawPrefix, type SesReceiptEvent } from '../../lambdas/inbound/ses-events';
import { asFunction } from '../../local/iam/recording';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';

let service: TestService;

// Each runs as the function bundled from its entry, so that the permission check judges its calls against that function's role.
const recipientFilter = () => asFunction('lambdas/inbound/recipient-filter.ts', createRecipientFilter(() => service.runtime.services));
const sesParser = () => asFunction('lambdas/inbound/ses-parser.ts', createSesParser(() => service.runtime.services));

beforeAll(async () => {
  service = await startTestService({ messageTtlSeconds: 60 });
});
afterAll(() => service.close());

function sesEvent(messageId: string, recipients: string[], verdicts: { virus?: string; spam?: string } = {}): SesReceiptEvent {
  const receipt = {
    recipients,
    ...(verdicts.virus ? { virusVerdict: { status: verdicts.virus } } : {}),
    ...(verdicts.spam ? { spamVerdict: { status: verdicts.spam } } : {}),
  };
  return { Records: [{ ses: { mail: { messageId, timestamp: service.clock.now().toISOString() }, receipt } }] };
}

describe('the SES receipt rule functions, over the same stores', () => {
  it('stops the rule set unless a recipient is an active address', async () => {
    const { apiKey } = await service.account();
    const email = (await json(await service.createEmail(apiKey, { local_part: 'ses-filter' }))).data;
    const filter = recipientFilter();
    expect(await filter(sesEvent('a1', ['nobody@tempmail.localhost', 'x@example.net']))).toEqual({
      disposition: 'STOP_RULE_SET',
    });
    expect(await filter(sesEvent('a2', ['nobody@tempmail.localhost', email.address]))).toEqual({ disposition: 'CONTINUE' });
  });

  it('drops a mail whose virus scan failed, and lets spam-looking mail through', async () => {
    const { apiKey } = await service.account();
    const email = (await json(await service.createEmail(apiKey, { local_part: 'ses-verdicts' }))).data;
    const filter = recipientFilter();
    expect(await filter(sesEvent('v1', [email.address], { virus: 'FAIL', spam: 'PASS' }))).toEqual({ disposition: 'STOP_RULE_SET' });
    expect(await filter(sesEvent('v2', [email.address], { virus: 'PASS', spam: 'FAIL' }))).toEqual({ disposition: 'CONTINUE' });
    expect(await filter(sesEvent('v3', [email.address], { virus: 'GRAY', spam: 'GRAY' }))).toEqual({ disposition: 'CONTINUE' });
  });

  it('ingests the raw object SES stored, with the local message lifetime override', async () => {
    const { apiKey } = await service.account();
    const email = (await json(await service.createEmail(apiKey, { local_part: 'ses-parser' }))).data;
    const raw = Buffer.from('From: a@example.org\r\nTo: someone@example.net\r\nSubject: via SES\r\n\r\nhello\r\n');
    await service.runtime.services.blobs.put(`${sesRawPrefix}ses-message-0001`, raw);
    const parse = sesParser();
    const { messageIds } = await parse(sesEvent('ses-message-0001', [email.address.toUpperCase()]));
    expect(messageIds).toHaveLength(1);

    const message = (await json(await service.request(`/v1/messages/${messageIds[0]}`, { key: apiKey }))).data;
    expect(message).toMatchObject({ subject: 'via SES', email_id: email.id, text: 'hello\n' });
    expect(Date.parse(message.expires_at) - Date.parse(message.received_at)).toBe(60_000);
    const source = await service.request(message.source_path, { key: apiKey });
    expect(Buffer.from(await source.arrayBuffer())).toEqual(raw);

    service.clock.advance(60_000);
    await service.runtime.sweep();
    expect(await service.runtime.services.blobs.get(`${sesRawPrefix}ses-message-0001`)).toBeUndefined();
  });

  it('drops a mail whose lifetime passed while its event waited, raw object included', async () => {
    const { apiKey } = await service.account();
    const email = (await json(await service.createEmail(apiKey, { local_part: 'ses-late' }))).data;
    await service.runtime.services.blobs.put(`${sesRawPrefix}ses-message-late`, Buffer.from('Subject: late\r\n\r\nlate\r\n'));
    const event = sesEvent('ses-message-late', [email.address]);
    service.clock.advance(60_000);
    const parse = sesParser();
    expect(await parse(event)).toEqual({ messageIds: [] });
    expect(await service.runtime.services.blobs.get(`${sesRawPrefix}ses-message-late`)).toBeUndefined();
  });

  it('refuses an event whose message id could name another object', async () => {
    const parse = sesParser();
    await expect(parse(sesEvent('../secrets', ['x@tempmail.localhost']))).rejects.toThrow('unexpected message id');
  });
});
