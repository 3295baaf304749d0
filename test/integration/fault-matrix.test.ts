import { randomUUID } from 'node:crypto';
import { sesRawPrefix } from '../../lambdas/inbound/ses-events';
import { createSesParser } from '../../lambdas/inbound/ses-parser';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { faultPlan, type FaultKind } from '../support/fault-plan';
import { refusalCode, sendMail, sendRaw, smtpSession, type SmtpSession } from '../support/smtp-client';

/**
 * Fault injection at every storage call: each route of the route table and the ingest path run
 * once cleanly while their storage calls are numbered; then, for every call and every kind of
 * failure, the same operation runs again with exactly that call failing. The answer must be
 * honest (503 with Retry-After in the error shape; SMTP 451), the reserved unit refunded,
 * nothing half-written visible, and the retry must succeed, delivering mail once per address.
 */
const plan = faultPlan();
const kinds: FaultKind[] = ['throttled', 'server error', 'timed out'];
let service: TestService;
let apiKey: string;
let accountId: string;
const inbox: { emailId: string; address: string; messageId: string; attachmentId: string; otherAddress: string; otherEmailId: string } = {} as never;

let requests = 0;
/** A request with the key; moves the test clock to a fresh short window every 100 requests. */
function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  if (++requests % 100 === 0) service.clock.advance(60_000);
  return service.request(path, { key: apiKey, ...init });
}

beforeAll(async () => {
  service = await startTestService({}, { instrumentDynamoDb: (client) => plan.instrument(client), wrapBlobs: (blobs) => plan.wrapBlobs(blobs) });
  ({ apiKey, accountId } = await service.account('paid'));
  const [first, second] = await Promise.all(
    ['matrix-one', 'matrix-two'].map(async (localPart) => (await json(await service.createEmail(apiKey, { local_part: localPart }))).data),
  );
  await sendMail(service.runtime.smtpPort, {
    from: 'sender@example.org',
    to: first.address,
    subject: 'setup',
    text: 'setup',
    html: '<p>setup</p>',
    attachments: [{ filename: 'a.txt', content: 'attachment' }],
  });
  const message = (await json(await service.request(`/v1/emails/${first.id}/messages`, { key: apiKey }))).data[0];
  const full = (await json(await service.request(`/v1/messages/${message.id}`, { key: apiKey }))).data;
  Object.assign(inbox, {
    emailId: first.id,
    address: first.address,
    messageId: message.id,
    attachmentId: full.attachments[0].id,
    otherAddress: second.address,
    otherEmailId: second.id,
  });
});
afterAll(() => service.close());

interface Scenario {
  name: string;
  /** Makes the request; `attempt` is shared by the failing run and its retry. */
  run(attempt: string): Promise<Response>;
  /** Checks the state after the retry, beyond its status. */
  afterRetry?(retry: Response, attempt: string): Promise<void>;
}

const scenarios: Scenario[] = [
  {
    name: 'POST /v1/emails',
    run: (attempt) =>
      call('/v1/emails', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `matrix-${attempt}` },
        body: JSON.stringify({ local_part: `m-${attempt}` }),
      }),
    async afterRetry(retry, attempt) {
      const email = (await json(retry)).data;
      expect(email.address).toBe(`m-${attempt}@tempmail.localhost`);
      expect((await call(`/v1/emails/${email.id}`)).status).toBe(200);
    },
  },
  { name: 'GET /v1/emails/{id}', run: () => call(`/v1/emails/${inbox.emailId}`) },
  { name: 'GET /v1/emails/{id}/messages', run: () => call(`/v1/emails/${inbox.emailId}/messages`) },
  { name: 'GET /v1/messages/{id}', run: () => call(`/v1/messages/${inbox.messageId}`) },
  { name: 'GET /v1/messages/{id}/source', run: () => call(`/v1/messages/${inbox.messageId}/source`) },
  { name: 'GET /v1/messages/{id}/attachments/{id}', run: () => call(`/v1/messages/${inbox.messageId}/attachments/${inbox.attachmentId}`) },
  { name: 'GET /v1/domains', run: () => call('/v1/domains') },
  { name: 'GET /v1/usage', run: () => call('/v1/usage') },
];

const remaining = () => service.remaining(accountId);
const figures = { cases: 0, calls: 0 };

describe('a storage failure at every call of every route', () => {
  it.each(scenarios.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    plan.start();
    const clean = await scenario.run(`clean-${randomUUID().slice(0, 8)}`);
    const cleanStatus = clean.status;
    await clean.arrayBuffer();
    const calls = plan.calls();
    expect(cleanStatus).toBeLessThan(300);
    expect(calls.length).toBeGreaterThan(0);
    figures.calls += calls.length;

    const problems: string[] = [];
    for (const [at, label] of calls.entries()) {
      for (const kind of kinds) {
        const where = `call ${at} (${label}) ${kind}`;
        const attempt = randomUUID().slice(0, 12);
        const before = await remaining();
        plan.start({ at, kind });
        const failed = await scenario.run(attempt);
        const body = await failed.text();
        figures.cases += 1;
        if (!plan.fired()) problems.push(`${where}: the call was not reached`);
        if (failed.status !== 503) problems.push(`${where}: answered ${failed.status}, not 503: ${body.slice(0, 200)}`);
        else {
          const error = JSON.parse(body).error;
          if (!error || error.code !== 'service_unavailable' || !/^req_/.test(error.request_id)) problems.push(`${where}: not the error shape: ${body}`);
          if (!(Number(failed.headers.get('retry-after')) >= 1)) problems.push(`${where}: 503 without Retry-After`);
        }
        const after = await remaining();
        if (after !== before) problems.push(`${where}: allowance ${before} before, ${after} after: the reserved unit was not refunded`);

        plan.start();
        const retry = await scenario.run(attempt);
        const charged = after - (await remaining());
        if (charged !== (scenario.name === 'GET /v1/usage' ? 0 : 1)) problems.push(`${where}: the retry was charged ${charged}`);
        if (retry.status !== cleanStatus) problems.push(`${where}: the retry answered ${retry.status}`);
        else if (scenario.afterRetry) await scenario.afterRetry(retry, attempt);
        else await retry.arrayBuffer();
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});

/** Two of our addresses. */
type Recipients = { addresses: [string, string]; emailIds: [string, string] };
const inboxPair = (): Recipients => ({ addresses: [inbox.address, inbox.otherAddress], emailIds: [inbox.emailId, inbox.otherEmailId] });

/** Two addresses the intake has never looked up, so that a mail to them makes every call of the ingest path. */
async function freshPair(): Promise<Recipients> {
  const [first, second] = await Promise.all([0, 1].map(async () => (await json(await service.createEmail(apiKey, {}))).data));
  return { addresses: [first.address, second.address], emailIds: [first.id, second.id] };
}

/** A mail with an attachment and an HTML body large enough to be stored as a blob, to both addresses. */
function mailFor(caseId: string, { addresses: [one, two] }: Recipients = inboxPair()) {
  return {
    envelope: { from: 'sender@example.org', to: [one, two] },
    raw: [
      'From: sender@example.org',
      `To: ${one}, ${two}`,
      `Subject: case ${caseId}`,
      `Message-ID: <${caseId}@example.org>`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: text/html; charset=utf-8',
      '',
      `<p>${'long body '.repeat(4000)}</p>`,
      '--b',
      'Content-Type: application/octet-stream',
      'Content-Disposition: attachment; filename="data.bin"',
      '',
      'attachment bytes',
      '--b--',
      '',
    ].join('\r\n'),
  };
}

/** Sends a mail in the session; its reply code and the codes of the recipients refused at RCPT TO. */
async function deliver(smtp: SmtpSession, mail: ReturnType<typeof mailFor>): Promise<{ code: number; rejected: number[] }> {
  try {
    const info = (await smtp.send(mail)) as { response: string; rejectedErrors?: { responseCode?: number }[] };
    return { code: Number(info.response.slice(0, 3)), rejected: (info.rejectedErrors ?? []).map((error) => error.responseCode ?? 0) };
  } catch (error) {
    return { code: (error as { responseCode?: number }).responseCode ?? 0, rejected: [] };
  }
}

/** The messages of a case at one address: each must be whole (source and attachment served). */
async function deliveredAt(emailId: string, caseId: string): Promise<{ count: number; whole: boolean }> {
  const list = (await json(await call(`/v1/emails/${emailId}/messages?limit=100`))).data as { id: string; subject: string }[];
  const mine = list.filter((message) => message.subject === `case ${caseId}`);
  let whole = true;
  for (const message of mine) {
    const full = (await json(await call(`/v1/messages/${message.id}`))).data;
    const source = await call(`/v1/messages/${message.id}/source`);
    const attachment = await call(`/v1/messages/${message.id}/attachments/${full.attachments[0]?.id}`);
    whole &&= source.status === 200 && attachment.status === 200 && full.html.length > 30_000 && full.attachments.length === 1;
    await source.arrayBuffer();
    await attachment.arrayBuffer();
  }
  return { count: mine.length, whole };
}

describe('a storage failure at every call of the ingest path', () => {
  it('answers 451, shows nothing half-written, and the sender’s retry delivers once to each address', async () => {
    const cleanId = randomUUID();
    const cleanPair = await freshPair();
    plan.start();
    // One SMTP session for every case, as the sending server's queue would use.
    const smtp = await smtpSession(service.runtime.smtpPort);
    await smtp.send(mailFor(cleanId, cleanPair));
    const calls = plan.calls();
    expect(calls.length).toBeGreaterThanOrEqual(6);
    figures.calls += calls.length;

    const problems: string[] = [];
    for (const [at, label] of calls.entries()) {
      for (const kind of kinds) {
        const where = `call ${at} (${label}) ${kind}`;
        const caseId = randomUUID();
        const pair = await freshPair();
        const mail = mailFor(caseId, pair);
        plan.start({ at, kind });
        const answer = await deliver(smtp, mail);
        figures.cases += 1;
        if (!plan.fired()) problems.push(`${where}: the call was not reached`);
        // The whole mail refused for now (451 after DATA), or the one recipient looked up when storage failed (451 at RCPT TO).
        const temporary = answer.code === 451 || (answer.code === 250 && answer.rejected.length === 1 && answer.rejected.every((code) => code === 451));
        if (!temporary) problems.push(`${where}: SMTP answered ${answer.code} with recipients refused ${JSON.stringify(answer.rejected)}, not 451`);
        plan.start();
        for (const emailId of pair.emailIds) {
          const partial = await deliveredAt(emailId, caseId);
          if (!partial.whole) problems.push(`${where}: a half-written message is visible after 451`);
        }
        const retry = await refusalCode(smtp.send(mail));
        if (retry !== undefined) problems.push(`${where}: the retry answered ${retry}`);
        for (const emailId of pair.emailIds) {
          const delivered = await deliveredAt(emailId, caseId);
          if (delivered.count !== 1 || !delivered.whole) problems.push(`${where}: ${delivered.count} messages at ${emailId} after the retry`);
        }
      }
    }
    smtp.close();
    expect(problems).toEqual([]);
  }, 180_000);

  it('delivers the same mail sent twice at once exactly once to each address (a condition race on the message write)', async () => {
    const caseId = randomUUID();
    const mail = mailFor(caseId);
    plan.start();
    const answers = await Promise.all([0, 1, 2].map(() => refusalCode(sendRaw(service.runtime.smtpPort, mail.envelope, mail.raw))));
    expect(answers).toEqual([undefined, undefined, undefined]);
    expect(plan.calls().filter((label) => label === 'PutItemCommand messages')).toHaveLength(6);
    for (const emailId of [inbox.emailId, inbox.otherEmailId]) expect(await deliveredAt(emailId, caseId)).toEqual({ count: 1, whole: true });
  });
});

describe('a repeated SES delivery', () => {
  it('makes no second message when Lambda runs the parser again for the same SES message', async () => {
    const sesId = `ses-${randomUUID()}`;
    const raw = Buffer.from(`From: a@example.org\r\nTo: ${inbox.address}\r\nSubject: case ${sesId}\r\n\r\nhello\r\n`);
    plan.start();
    await service.runtime.services.blobs.put(`${sesRawPrefix}${sesId}`, raw);
    const parse = createSesParser(() => service.runtime.services);
    const event = { Records: [{ ses: { mail: { messageId: sesId, timestamp: service.clock.now().toISOString() }, receipt: { recipients: [inbox.address] } } }] };
    const first = await parse(event);
    const again = await parse(event);
    expect(again.messageIds).toEqual(first.messageIds);
    const list = (await json(await call(`/v1/emails/${inbox.emailId}/messages?limit=100`))).data as { subject: string }[];
    expect(list.filter((message) => message.subject === `case ${sesId}`)).toHaveLength(1);
  });
});

afterAll(() => {
  process.stdout.write(`fault injection: ${figures.calls} storage calls found, ${figures.cases} faults injected (${plan.injected()} thrown)\n`);
});
