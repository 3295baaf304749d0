import { AllowanceExhaustedError, TempmailError, WaitTimeoutError } from '../../client/src';
import { contractFetch } from '../support/contract';
import { burst } from '../support/burst';
import { startTestService, type TestService } from '../support/local-service';
import { sendMail } from '../support/smtp-client';
import { clientFor } from '../support/tempmail-client';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ domains: ['tempmail.localhost', 'second.test', 'third.test'] });
});
afterAll(() => service.close());

const mailTo = (to: string, subject: string, text = `Body of ${subject}`) =>
  sendMail(service.runtime.smtpPort, { from: 'Sign-up Robot <robot@app.example>', to, subject, text });

describe('TempmailClient against the local service', () => {
  it('creates an email, and a replay with the same key returns the same email, uncharged', async () => {
    const { accountId, apiKey } = await service.account('paid');
    const { client, sent } = clientFor(service, apiKey);
    const email = await client.createEmail({ local_part: 'client-create', domain: 'tempmail.localhost' });
    expect(email).toMatchObject({ local_part: 'client-create', domain: 'tempmail.localhost', status: 'active' });
    const key = sent[0]!.headers['Idempotency-Key']!;
    expect(key).toMatch(/^[\x21-\x7E]{16,255}$/);

    const before = await service.remaining(accountId);
    expect(await client.createEmail({ local_part: 'client-create', domain: 'tempmail.localhost' }, { idempotencyKey: key })).toEqual(email);
    expect(await service.remaining(accountId)).toBe(before);

    const other = await client.createEmail();
    expect(other.id).not.toBe(email.id);
    expect(sent[2]!.headers['Idempotency-Key']).not.toBe(key);
  });

  it('after an uncertain outcome retries the create with the same key and body, and gets the one email', async () => {
    const { apiKey } = await service.account('paid');
    let lost = false;
    const sent: Record<string, string>[] = [];
    const lossy = clientFor(service, apiKey, {
      fetch: async (input, init) => {
        sent.push({ ...(init?.headers as Record<string, string>) });
        const response = await contractFetch(input as string | URL, init);
        if (!lost) {
          lost = true; // the service created the email, but the answer never reached the client
          await response.arrayBuffer();
          throw new TypeError('fetch failed: socket hang up');
        }
        return response;
      },
    });
    const email = await lossy.client.createEmail({ local_part: 'uncertain-outcome' });
    expect(sent).toHaveLength(2);
    expect(sent[1]!['Idempotency-Key']).toBe(sent[0]!['Idempotency-Key']);
    expect(lossy.sleeps).toHaveLength(1);
    expect(await lossy.client.getEmail(email.id)).toEqual(email);
    expect(email.local_part).toBe('uncertain-outcome');
  });

  it('walks every page of a listing, sending each next_cursor unchanged', async () => {
    const { apiKey } = await service.account('paid');
    const { client, sent } = clientFor(service, apiKey);
    const email = await client.createEmail();
    for (let i = 0; i < 23; i++) {
      await mailTo(email.address, `Mail ${i}`);
      service.clock.advance(1_000);
    }

    const subjects: string[] = [];
    for await (const item of client.messages(email.id, { limit: 5 })) subjects.push(item.subject);
    expect(subjects).toEqual(Array.from({ length: 23 }, (_, i) => `Mail ${22 - i}`)); // newest first

    const pages = sent.filter(({ url }) => url.pathname.endsWith('/messages'));
    expect(pages).toHaveLength(5);
    expect(pages[0]!.url.searchParams.has('cursor')).toBe(false);
    const cursors: string[] = [];
    for await (const page of client.pages((cursor) => client.listMessages(email.id, { limit: 5, cursor }))) {
      if (page.pagination.has_more) cursors.push(page.pagination.next_cursor!);
    }
    const followUps = sent.filter(({ url }) => url.pathname.endsWith('/messages')).slice(6);
    expect(followUps.map(({ url }) => url.searchParams.get('cursor'))).toEqual(cursors);

    const domains: string[] = [];
    for await (const domain of client.domains({ limit: 1 })) domains.push(domain.domain);
    expect(domains.sort()).toEqual(['second.test', 'tempmail.localhost', 'third.test']);
  });

  it('waits for a message that arrives while it polls, matching on from, subject and body', async () => {
    const { apiKey } = await service.account('paid');
    const email = await clientFor(service, apiKey).client.createEmail();
    const { client, sent, sleeps } = clientFor(service, apiKey, {
      onSleep: async (index) => {
        if (index === 1) await mailTo(email.address, 'Weekly newsletter', 'Nothing to verify here');
        if (index === 2) await mailTo(email.address, 'Your sign-up code', 'Your code is 381204');
      },
    });
    const message = await client.waitForMessage(email.id, {
      timeoutMs: 30_000,
      match: { from: 'robot@app.example', subject: /code/i, body: /\b\d{6}\b/ },
    });
    expect(message.subject).toBe('Your sign-up code');
    expect(message.text).toContain('381204');
    expect(sleeps).toEqual([1000, 1500]);
    // 3 polls and one whole-message read; the newsletter never matched the subject, so it was not read.
    expect(sent.map(({ url }) => url.pathname.split('/').slice(2, 3)[0])).toEqual(['emails', 'emails', 'emails', 'messages']);
  });

  it('times out at its deadline after 9 charged polls for a 30-second wait, sending nothing once the deadline is reached', async () => {
    const { accountId, apiKey } = await service.account('paid');
    const email = await clientFor(service, apiKey).client.createEmail();
    await mailTo(email.address, 'Not the one');
    const before = await service.remaining(accountId);
    const { client, sleeps } = clientFor(service, apiKey);
    const start = service.clock.now().getTime();
    const failure = await client.waitForMessage(email.id, { timeoutMs: 30_000, match: { subject: 'welcome' } }).catch((error) => error);
    expect(failure).toBeInstanceOf(WaitTimeoutError);
    expect(failure).toMatchObject({ requests: 9, reason: 'deadline', seenSubjects: ['Not the one'] });
    expect(service.clock.now().getTime() - start).toBe(30_000);
    expect(sleeps).toEqual([1000, 1500, 2250, 3375, 5000, 5000, 5000, 5000, 1875]);
    expect(before - (await service.remaining(accountId))).toBe(9);
  });

  it('on a short-window 429 waits Retry-After plus jitter, then succeeds', async () => {
    const { apiKey } = await service.account('paid');
    const now = service.clock.now().getTime();
    service.clock.advance(60_000 - (now % 60_000));
    expect(await burst(() => service.request('/v1/usage', { key: apiKey }), 300)).toEqual({ 200: 300 });
    service.clock.advance(45_000);

    const { client, sent, sleeps } = clientFor(service, apiKey);
    const usage = await client.getUsage();
    expect(usage.plan).toBe('paid');
    expect(sent).toHaveLength(2);
    // Retry-After 15 s, plus full jitter: random 0.5 of the first ceiling (250 ms).
    expect(sleeps).toEqual([15_000 + 125]);
    // A watchdog, not a measure: its 300 requests passed 30 s on a loaded machine though the service's clock is frozen.
  }, 90_000);

  it('reports a used-up allowance at once as AllowanceExhaustedError, never retried', async () => {
    const { apiKey } = await service.account('free');
    expect(await burst(() => service.request('/v1/domains', { key: apiKey }), 100)).toEqual({ 200: 100 });
    const { client, sent, sleeps } = clientFor(service, apiKey);
    const failure = await client.listDomains().catch((error) => error);
    expect(failure).toBeInstanceOf(AllowanceExhaustedError);
    expect(failure).toMatchObject({ status: 429, code: 'rate_limit_exceeded', requestId: expect.stringMatching(/^req_/) });
    expect(failure.reason).toBe('allowance_exhausted');
    expect(sent).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect((await client.getUsage()).remaining_requests).toBe(0);
    // The same watchdog: 100 requests took 18 s on a loaded machine.
  }, 90_000);

  it('throws other 4xx at once as TempmailError with status, code, message, request id and details', async () => {
    const { apiKey } = await service.account('paid');
    const { client, sent, sleeps } = clientFor(service, apiKey);
    const notFound = await client.getMessage('msg_doesnotexist00').catch((error) => error);
    expect(notFound).toBeInstanceOf(TempmailError);
    expect(notFound).toMatchObject({ status: 404, code: 'resource_not_found', requestId: expect.stringMatching(/^req_/) });
    const invalid = await client.listDomains({ limit: 500 }).catch((error) => error);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', details: [expect.objectContaining({ field: 'limit' })] });
    expect(invalid.message).toEqual(expect.any(String));
    expect(sent).toHaveLength(2);
    expect(sleeps).toEqual([]);
  });
});
