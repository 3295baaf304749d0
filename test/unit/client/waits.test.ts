import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import {
  AllowanceExhaustedError,
  NotFoundError,
  RateLimitedError,
  TempmailClient,
  TempmailNetworkError,
  UnexpectedMessageError,
  worstCaseRequests,
  WaitTimeoutError,
  operationMethods,
  type Message,
} from '../../../client/src';

const EMAIL = 'eml_aaaaaaaaaa';

/**
 * A stand-in service behind the real client: one inbox listed newest first (`limit` honoured,
 * numeric cursors), a fake clock that sleeps advance, and answers a test can override.
 */
function service() {
  let now = Date.parse('2026-11-22T12:00:00Z');
  const messages: Message[] = [];
  const requests: string[] = [];
  const sleeps: number[] = [];
  let override: ((path: string) => Response | undefined) | undefined;
  const arrive = (subject: string, text = '', to = ['x@tempmail.localhost']) => {
    const id = `msg_${String(messages.length).padStart(10, '0')}` as const;
    messages.unshift({
      id,
      email_id: EMAIL,
      from: 'App <app@example.com>',
      to,
      subject,
      received_at: new Date(now).toISOString(),
      expires_at: new Date(now + 900_000).toISOString(),
      size_bytes: 10,
      attachment_count: 0,
      source_path: `/v1/messages/${id}/source`,
      text,
      html: '',
      attachments: [],
    });
    return id;
  };
  const json = (body: unknown, status = 200, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
  const client = new TempmailClient({
    apiKey: 'tm_local_test',
    fetch: async (input) => {
      const url = new URL(String(input));
      requests.push(`${url.pathname}${url.search}`);
      const answer = override?.(url.pathname);
      if (answer) return answer;
      if (url.pathname === `/v1/emails/${EMAIL}/messages`) {
        const limit = Number(url.searchParams.get('limit') ?? 20);
        const start = Number(url.searchParams.get('cursor') ?? 0);
        const data = messages.slice(start, start + limit).map(({ text: _t, html: _h, attachments: _a, ...item }) => item);
        const more = start + limit < messages.length;
        return json({ data, pagination: more ? { has_more: true, next_cursor: String(start + limit) } : { has_more: false } });
      }
      const message = messages.find((each) => url.pathname === `/v1/messages/${each.id}`);
      if (message) return json({ data: message });
      return json({ error: { code: 'resource_not_found', message: 'No such resource', request_id: 'req_x' } }, 404);
    },
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
      onSleep?.(sleeps.length);
    },
    random: () => 0,
  });
  let onSleep: ((count: number) => void) | undefined;
  return {
    client,
    arrive,
    requests,
    sleeps,
    json,
    advance: (ms: number) => (now += ms),
    now: () => now,
    onSleep: (callback: (count: number) => void) => (onSleep = callback),
    answer: (callback: (path: string) => Response | undefined) => (override = callback),
  };
}

describe('waits return the mail the action caused', () => {
  it('a second wait on the same inbox returns the second mail, not the first again', async () => {
    const { client, arrive, onSleep } = service();
    arrive('Your sign-up code', 'code 111111');
    const first = await client.waitForMessage(EMAIL, { match: { subject: 'code' } });
    expect(first.text).toBe('code 111111');
    onSleep((count) => count === 1 && arrive('Your reset code', 'code 222222'));
    const second = await client.waitForMessage(EMAIL, { match: { subject: 'code' } });
    expect(second.text).toBe('code 222222');
  });

  it('the inbox shares the memory: inbox.waitForCode twice gives two codes', async () => {
    const { client, arrive, onSleep } = service();
    const inbox = client.inbox({ id: EMAIL, address: 'x@tempmail.localhost' } as never);
    arrive('Sign-up', 'code 111111');
    expect(await inbox.waitForCode()).toBe('111111');
    onSleep((count) => count === 1 && arrive('Reset', 'code 222222'));
    expect(await inbox.waitForCode()).toBe('222222');
  });

  it('a message an assertion found (toHaveReceived) is kept: the next wait returns it without a request', async () => {
    const { client, arrive, requests } = service();
    const inbox = client.inbox({ id: EMAIL, address: 'x@tempmail.localhost' } as never);
    arrive('Your code', 'code 123456');
    await inbox.receive({ subject: 'code' });
    const spent = requests.length;
    expect(await inbox.waitForCode({ subject: 'code' })).toBe('123456');
    expect(requests).toHaveLength(spent);
    expect(inbox.lastWait).toEqual({ requests: 0 });
    expect(inbox.requests).toBe(2);
  });

  it('with after: mark, a matching mail already there is not returned, and the poll stops paging at the mark', async () => {
    const { client, arrive, onSleep, requests } = service();
    for (let i = 0; i < 150; i++) arrive(`old ${i}`);
    arrive('Your code', 'code 111111');
    const mark = await client.mark(EMAIL);
    expect(mark.ids).toHaveLength(100);
    onSleep((count) => count === 1 && arrive('Your code', 'code 222222'));
    requests.length = 0;
    const message = await client.waitForMessage(EMAIL, { after: mark, match: { subject: 'code' } });
    expect(message.text).toBe('code 222222');
    // One page per poll (never the 151 old messages again), plus the read.
    expect(requests).toEqual([`/v1/emails/${EMAIL}/messages?limit=100`, `/v1/emails/${EMAIL}/messages?limit=100`, `/v1/messages/${message.id}`]);
  });

  it('matches any recipient with `to`, and waitForMessages returns `count` mails oldest first', async () => {
    const { client, arrive, onSleep } = service();
    arrive('For bob', '', ['bob@tempmail.localhost']);
    onSleep((count) => {
      if (count === 1) arrive('For alice 1', '', ['carol@example.com', 'Alice@tempmail.localhost']);
      if (count === 2) arrive('For alice 2', '', ['alice@tempmail.localhost']);
    });
    const mails = await client.waitForMessages(EMAIL, { count: 2, match: { to: 'alice@' } });
    expect(mails.map((mail) => mail.subject)).toEqual(['For alice 1', 'For alice 2']);
  });
});

describe('waits hold their deadline', () => {
  it.each([Number.NaN, 0, -1, Number.POSITIVE_INFINITY, '30s'])('refuses timeoutMs %p at the call, before any request', async (timeoutMs) => {
    const { client, requests } = service();
    await expect(client.waitForMessage(EMAIL, { timeoutMs: timeoutMs as number })).rejects.toThrow(TypeError);
    expect(() => new TempmailClient({ apiKey: 'tm_x', requestTimeoutMs: timeoutMs as number })).toThrow(TypeError);
    expect(requests).toHaveLength(0);
  });

  it("a 2 s wait against 429 with Retry-After 5 ends at its deadline with the 429 as cause", async () => {
    const { client, json, answer, now } = service();
    answer(() => json({ error: { code: 'rate_limited', message: 'Slow down', request_id: 'req_x' } }, 429, { 'Retry-After': '5', 'RateLimit-Remaining': '40' }));
    const start = now();
    const failure: WaitTimeoutError = await client.waitForMessage(EMAIL, { timeoutMs: 2_000 }).catch((caught) => caught);
    expect(failure).toBeInstanceOf(WaitTimeoutError);
    expect(failure.reason).toBe('deadline');
    expect(failure.cause).toBeInstanceOf(RateLimitedError);
    expect(now() - start).toBe(2_000);
  });

  it('polls through 5xx and network errors until the deadline, then reports the last error', async () => {
    const { client, json, answer, onSleep, arrive } = service();
    let calls = 0;
    answer(() => {
      calls++;
      if (calls === 1) return json({ error: { code: 'internal_error', message: 'Oops', request_id: 'req_x' } }, 500);
      if (calls === 2) throw new TypeError('fetch failed');
      return undefined;
    });
    onSleep((count) => count === 2 && arrive('Hello'));
    expect((await client.waitForMessage(EMAIL, { timeoutMs: 10_000 })).subject).toBe('Hello');

    const second = service();
    second.answer(() => {
      throw new TypeError('fetch failed');
    });
    const failure: WaitTimeoutError = await second.client.waitForMessage(EMAIL, { timeoutMs: 3_000 }).catch((caught) => caught);
    expect(failure).toBeInstanceOf(WaitTimeoutError);
    expect(failure.cause).toBeInstanceOf(TempmailNetworkError);
  });

  it('ends at once on a used-up allowance and on a 404', async () => {
    const { client, json, answer, requests } = service();
    answer(() => json({ error: { code: 'rate_limited', message: 'Used up', request_id: 'req_x' } }, 429, { 'Retry-After': '60', 'RateLimit-Remaining': '0' }));
    await expect(client.waitForMessage(EMAIL)).rejects.toBeInstanceOf(AllowanceExhaustedError);
    expect(requests).toHaveLength(1);
    await expect(service().client.waitForMessage('eml_bbbbbbbbbb')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('spends at most maxRequests, and reports what a wait spent', async () => {
    const { client, requests } = service();
    const failure: WaitTimeoutError = await client.waitForMessage(EMAIL, { maxRequests: 3, stopAtBudget: true }).catch((caught) => caught);
    expect(failure).toMatchObject({ reason: 'budget', requests: 3 });
    expect(requests).toHaveLength(3);

    const quiet = service();
    const timedOut: WaitTimeoutError = await quiet.client.waitForMessage(EMAIL, { timeoutMs: 30_000 }).catch((caught) => caught);
    expect(timedOut.requests).toBeLessThanOrEqual(11);
  });

  it('an abort ends the wait at once with the signal reason', async () => {
    const { client, onSleep } = service();
    const controller = new AbortController();
    onSleep((count) => count === 2 && controller.abort(new Error('test over')));
    await expect(client.waitForMessage(EMAIL, { signal: controller.signal })).rejects.toThrow('test over');
  });

  describe('against a server that never answers', () => {
    let server: Server;
    let baseUrl: string;
    beforeAll(async () => {
      server = createServer(() => undefined);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('a wait ends at its deadline, its requests cut short', async () => {
      const client = new TempmailClient({ apiKey: 'tm_local_test', baseUrl });
      const failure: WaitTimeoutError = await client.waitForMessage(EMAIL, { timeoutMs: 300 }).catch((caught) => caught);
      expect(failure).toBeInstanceOf(WaitTimeoutError);
      expect(failure.cause).toBeInstanceOf(TempmailNetworkError);
      expect((failure.cause as Error).message).toContain(baseUrl);
    });

    it('a single call takes a signal and a request time-out', async () => {
      const client = new TempmailClient({ apiKey: 'tm_local_test', baseUrl, retry: { maxServerRetries: 0 } });
      await expect(client.getUsage({ requestTimeoutMs: 100 })).rejects.toThrow(/timed out after 100 ms/);
      const controller = new AbortController();
      const pending = client.getUsage({ signal: controller.signal });
      controller.abort(new Error('cancelled'));
      await expect(pending).rejects.toThrow('cancelled');
    });
  });
});

describe('configuration', () => {
  it('refuses a malformed key at construction, without the key in the message and without a request', () => {
    for (const key of ['tm_abc\ndef', 'tm_abc\0def', 'tm_abc def', 'tm_abcé']) {
      let message = '';
      try {
        new TempmailClient({ apiKey: key, fetch: () => Promise.reject(new Error('no request expected')) });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/API key/);
      expect(message).not.toContain('abc');
    }
  });

  it('names TEMPMAIL_API_KEY when no key is given, defaults the base URL and explains a /v1 base URL', () => {
    const saved = { key: process.env.TEMPMAIL_API_KEY, url: process.env.TEMPMAIL_BASE_URL };
    delete process.env.TEMPMAIL_API_KEY;
    delete process.env.TEMPMAIL_BASE_URL;
    try {
      expect(() => new TempmailClient()).toThrow(/TEMPMAIL_API_KEY/);
      expect(new TempmailClient({ apiKey: 'tm_x' }).baseUrl).toBe('http://127.0.0.1:3000');
      expect(() => new TempmailClient({ apiKey: 'tm_x', baseUrl: 'http://127.0.0.1:3000/v1/' })).toThrow(/already begin with \/v1/);
    } finally {
      if (saved.key !== undefined) process.env.TEMPMAIL_API_KEY = saved.key;
      if (saved.url !== undefined) process.env.TEMPMAIL_BASE_URL = saved.url;
    }
  });

  it('never shows the key when inspected, and maps every operationId to a method', () => {
    const client = new TempmailClient({ apiKey: 'tm_secret_value' });
    expect(inspect(client)).not.toContain('tm_secret_value');
    expect(JSON.stringify(client)).not.toContain('tm_secret_value');
    for (const method of Object.values(operationMethods)) expect(typeof client[method]).toBe('function');
  });
});

describe('a wait that times out explains itself', () => {
  it('names its criteria, deadline, polls, requests, arrivals and the first criterion each arrival failed, never a body', async () => {
    const { client, arrive, answer, json, now } = service();
    const start = now();
    arrive('Weekly newsletter', 'secret body one');
    arrive('Verify your email', 'secret body two'); // from App, not acme
    const expiring = arrive('Verify at acme', 'secret body three', ['x@tempmail.localhost']);
    answer((path) => (path === `/v1/messages/${expiring}` ? json({ error: { code: 'resource_not_found', message: 'No such resource', request_id: 'req_x' } }, 404) : undefined));
    const failure: WaitTimeoutError = await client.waitForMessage(EMAIL, { timeoutMs: 10_000, match: { subject: /verify/i, from: 'app@', body: 'code' } }).catch((caught) => caught);
    expect(failure).toBeInstanceOf(WaitTimeoutError);
    expect(failure.report).toMatchObject({ criteria: 'subject /verify/i, from "app@", body "code"', deadline: new Date(start + 10_000).toISOString(), polls: 5, arrived: 3, expired: 1 });
    expect(failure.report.rejected.map(({ subject, failed }) => [subject, failed])).toEqual([['Weekly newsletter', 'subject'], ['Verify your email', 'body']]);
    expect(failure.message).toContain('waited for: subject /verify/i, from "app@", body "code"; deadline ');
    expect(failure.message).toContain(`5 polls, ${failure.requests} requests; 3 arrived in the window, 2 did not match, 1 expired meanwhile`);
    expect(failure.message).toMatch(/"Weekly newsletter" from "App <app@example.com>" at \S+ \(failed subject\)/);
    expect(failure.message).toContain('(failed body)');
    expect(failure.message).not.toContain('secret body');
    expect(failure.seenSubjects).toEqual(['Verify your email', 'Weekly newsletter']);
  });

  it('names from, to and where as the criterion failed first', async () => {
    const { client, arrive } = service();
    arrive('Hello', '', ['bob@tempmail.localhost']);
    const byTo: WaitTimeoutError = await client.waitForMessage(EMAIL, { timeoutMs: 2_000, match: { to: 'alice@' } }).catch((caught) => caught);
    expect(byTo.report.rejected.map(({ failed }) => failed)).toEqual(['to']);
    const byFrom: WaitTimeoutError = await client.waitForMessage(EMAIL, { timeoutMs: 2_000, match: { from: 'acme' } }).catch((caught) => caught);
    expect(byFrom.report.rejected.map(({ failed }) => failed)).toEqual(['from']);
    const byWhere: WaitTimeoutError = await client.waitForMessage(EMAIL, { timeoutMs: 2_000, match: { where: () => false } }).catch((caught) => caught);
    expect(byWhere.report).toMatchObject({ criteria: 'where(message)', rejected: [{ subject: 'Hello', failed: 'where' }] });
  });
});

describe('absence and exact counts', () => {
  const inboxOf = (client: TempmailClient) => client.inbox({ id: EMAIL, address: 'x@tempmail.localhost' } as never);

  it('expectNoMessage polls through its window and passes when nothing matching arrives', async () => {
    const { client, arrive, onSleep, now, requests } = service();
    onSleep((count) => count === 2 && arrive('Newsletter'));
    const start = now();
    await expect(inboxOf(client).expectNoMessage({ subject: 'password changed' }, { forMs: 10_000 })).resolves.toBeUndefined();
    expect(now() - start).toBe(10_000);
    expect(requests.length).toBeGreaterThanOrEqual(5);
  });

  it('expectNoMessage fails naming the mail that arrived, never its body, and leaves it for a later wait', async () => {
    const { client, arrive, onSleep } = service();
    const inbox = inboxOf(client);
    onSleep((count) => count === 3 && arrive('Your password was changed', 'secret body'));
    const failure: UnexpectedMessageError = await inbox.expectNoMessage({ subject: 'password' }, { forMs: 30_000 }).catch((caught) => caught);
    expect(failure).toBeInstanceOf(UnexpectedMessageError);
    expect(failure.message).toMatch(/^Expected no matching message \(subject "password"\) at x@tempmail\.localhost for 30000 ms, but "Your password was changed" from "App <app@example.com>" arrived at 2026-11-22T12:00:\d\d\.\d+Z/);
    expect(failure.message).not.toContain('secret body');
    expect((await inbox.waitForMessage({ subject: 'password' })).subject).toBe('Your password was changed');
  });

  it('waitForMessages with exact fails on one more than asked, naming it; without exact returns the count', async () => {
    const { client, arrive } = service();
    for (const n of [1, 2, 3]) arrive(`Invite ${n}`);
    const failure: UnexpectedMessageError = await client.waitForMessages(EMAIL, { count: 2, exact: true, match: { subject: 'invite' } }).catch((caught) => caught);
    expect(failure).toBeInstanceOf(UnexpectedMessageError);
    expect(failure.messages.map(({ subject }) => subject)).toEqual(['Invite 3']);
    expect(failure.message).toMatch(/^Expected exactly 2 matching messages \(subject "invite"\), but "Invite 3" from/);
    const second = service();
    for (const n of [1, 2, 3]) second.arrive(`Invite ${n}`);
    expect((await second.client.waitForMessages(EMAIL, { count: 2, match: { subject: 'invite' } })).map(({ subject }) => subject)).toEqual(['Invite 1', 'Invite 2']);
    expect((await inboxOf(second.client).waitForMessages(1, { subject: 'invite' }, { exact: true })).map(({ subject }) => subject)).toEqual(['Invite 3']);
  });
});

describe('what a wait costs', () => {
  it('has a worst case that follows from its deadline and schedule, within a free plan for a 30-second wait', () => {
    expect(worstCaseRequests()).toBe(10); // 9 polls in 30 s and the read of the mail found
    expect(worstCaseRequests({ timeoutMs: 60_000 })).toBe(16);
    expect(worstCaseRequests({ timeoutMs: 30_000, count: 3 })).toBe(12);
    expect(worstCaseRequests({ timeoutMs: 30_000, initialIntervalMs: 5_000 })).toBe(7);
  });

  it('refuses to start a wait whose worst case exceeds maxRequests, before any request, unless stopAtBudget', async () => {
    const { client, requests } = service();
    const refused = await client.waitForMessage(EMAIL, { timeoutMs: 30_000, maxRequests: 9 }).catch((caught) => caught);
    expect(refused).toBeInstanceOf(RangeError);
    expect(refused.message).toBe(
      "maxRequests 9 is below this wait's worst case of 10 requests (9 polls in 30000 ms on its schedule, and 1 read): give a shorter timeoutMs or a longer initialIntervalMs/maxIntervalMs, or stopAtBudget: true to let the budget end the wait early",
    );
    expect(requests).toHaveLength(0);
    const quiet: WaitTimeoutError = await client.waitForMessage(EMAIL, { timeoutMs: 30_000, maxRequests: 10 }).catch((caught) => caught);
    expect(quiet).toMatchObject({ reason: 'deadline', requests: 9 });
  });
});
