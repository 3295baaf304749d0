import { shortWindowAt } from '../../lambdas/core/short-window';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { serviceStartTimeoutMs } from '../support/test-runtime';
import { contractFetch, contractRequest } from '../support/contract';

let service: TestService;
const day = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  service = await startTestService({ domains: ['tempmail.localhost', 'mail.example.test'] });
  await service.runtime.services.domains.put({ domain: 'closed.example.test', createEnabled: false, receiveEnabled: true });
}, serviceStartTimeoutMs);
afterAll(() => service.close());

async function expectError(response: Response, status: number, code: string, field?: string) {
  expect(response.status).toBe(status);
  const body = await json(response);
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toBe(response.headers.get('x-request-id'));
  if (field) expect(body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  return body;
}

/**
 * Takes `units` of an account's allowance as that many charged requests of its key would (each
 * counted in the key's short window too), through the operator's view of storage. The tests that
 * call it are about the last unit, not about spending the ones before it, which the charging
 * suite does request by request; on start:stack each request runs the authorizer and a function,
 * and 99 of them took most of a test's 30 s on a loaded machine.
 */
async function spend(account: { accountId: string; keyId: string }, units: number): Promise<void> {
  const admission = { keyId: account.keyId, charge: true, window: shortWindowAt(service.clock.now()), at: service.clock.now().toISOString() };
  for (let unit = 0; unit < units; unit++) {
    expect((await service.runtime.services.ledger.reserve(account.accountId, admission)).outcome).toBe('reserved');
  }
}

describe('POST /v1/emails', () => {
  it('chooses both parts for an empty body and answers 201 with the Email and every header', async () => {
    const { accountId, apiKey } = await service.account();
    const response = await service.createEmail(apiKey, {});
    expect(response.status).toBe(201);
    const { data } = await json(response);
    expect(Object.keys(data).sort()).toEqual(['address', 'created_at', 'domain', 'expires_at', 'id', 'local_part', 'status']);
    expect(data.id).toMatch(/^eml_[A-Za-z0-9_-]{10,64}$/);
    expect(data.local_part).toMatch(/^[a-z][a-z0-9]{15}$/);
    expect(data.domain).toBe('mail.example.test');
    expect(data.address).toBe(`${data.local_part}@${data.domain}`);
    expect(data.status).toBe('active');
    expect(data.created_at).toBe(service.clock.now().toISOString());
    expect(Date.parse(data.expires_at) - Date.parse(data.created_at)).toBe(30 * day);
    expect(response.headers.get('location')).toBe(`/v1/emails/${data.id}`);
    expect(response.headers.get('idempotency-replayed')).toBe('false');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]{16,80}$/);
    expect(response.headers.get('ratelimit-limit')).toBe('100');
    expect(response.headers.get('ratelimit-remaining')).toBe('99');
    expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThan(service.clock.now().getTime() / 1000);
    expect(await service.remaining(accountId)).toBe(99);
  });

  it('takes the given local part and chooses the domain, or the reverse', async () => {
    const { apiKey } = await service.account();
    const named = await json(await service.createEmail(apiKey, { local_part: 'signup-test_1' }));
    expect(named.data).toMatchObject({ local_part: 'signup-test_1', domain: 'mail.example.test' });
    const onDomain = await json(await service.createEmail(apiKey, { domain: 'tempmail.localhost' }));
    expect(onDomain.data.domain).toBe('tempmail.localhost');
    expect(onDomain.data.local_part).toMatch(/^[a-z][a-z0-9]{15}$/);
    const both = await json(await service.createEmail(apiKey, { local_part: 'both', domain: 'tempmail.localhost' }));
    expect(both.data.address).toBe('both@tempmail.localhost');
  });

  it('normalizes case and a trailing dot', async () => {
    const { apiKey } = await service.account();
    const response = await service.createEmail(apiKey, { local_part: ' Mixed.Case ', domain: 'TempMail.LocalHost.' });
    expect(response.status).toBe(201);
    expect((await json(response)).data.address).toBe('mixed.case@tempmail.localhost');
  });

  it('never issues an address twice: 409 address_unavailable, for any account, even after expiry', async () => {
    const first = await service.account();
    const second = await service.account();
    expect((await service.createEmail(first.apiKey, { local_part: 'once-only' })).status).toBe(201);
    await expectError(await service.createEmail(first.apiKey, { local_part: 'once-only' }), 409, 'address_unavailable');
    await expectError(await service.createEmail(second.apiKey, { local_part: 'ONCE-ONLY' }), 409, 'address_unavailable');
    service.clock.advance(31 * day);
    await expectError(await service.createEmail(second.apiKey, { local_part: 'once-only' }), 409, 'address_unavailable');
    expect((await service.createEmail(second.apiKey, { local_part: 'once-only', domain: 'tempmail.localhost' })).status).toBe(201);
  });

  it.each(['postmaster', 'abuse', 'No-Reply', 'no_reply', 'mailer.daemon', 'root', 'hostmaster', 'webmaster'])(
    'refuses the reserved name %j with 422 reserved_name',
    async (localPart) => {
      const { apiKey } = await service.account();
      const body = await expectError(await service.createEmail(apiKey, { local_part: localPart }), 422, 'policy_violation');
      expect(body.error.details).toEqual([{ field: 'local_part', reason: 'reserved_name' }]);
    },
  );

  it('refuses two dots in a row with 422', async () => {
    const { apiKey } = await service.account();
    await expectError(await service.createEmail(apiKey, { local_part: 'a..b' }), 422, 'policy_violation', 'local_part');
  });

  it.each([
    ['an unlisted domain', 'elsewhere.example.org'],
    ['a domain closed for creation', 'closed.example.test'],
  ])('refuses %s with 422 domain_not_allowed, answers its retry the same, and frees the key for another body', async (_name, domain) => {
    const { accountId, apiKey } = await service.account();
    const key = `idem-domain-${domain}`;
    const body = await expectError(await service.createEmail(apiKey, { domain }, key), 422, 'policy_violation');
    expect(body.error.details).toEqual([{ field: 'domain', reason: 'domain_not_allowed' }]);
    const retry = await expectError(await service.createEmail(apiKey, { domain }, key), 422, 'policy_violation');
    expect(retry.error.details).toEqual(body.error.details);
    expect(await service.remaining(accountId)).toBe(98);
    expect((await service.createEmail(apiKey, { domain: 'tempmail.localhost' }, key)).status).toBe(201);
  });

  it.each([
    ['a local part starting with a dot', { local_part: '.abc' }, 'local_part'],
    ['a local part ending with a hyphen', { local_part: 'abc-' }, 'local_part'],
    ['a local part with a space', { local_part: 'a b' }, 'local_part'],
    ['a local part with a plus', { local_part: 'a+b' }, 'local_part'],
    ['a local part of 65 characters', { local_part: 'a'.repeat(65) }, 'local_part'],
    ['an empty local part', { local_part: '' }, 'local_part'],
    ['a local part that is not a string', { local_part: 42 }, 'local_part'],
    ['a null local part', { local_part: null }, 'local_part'],
    ['a non-ASCII local part', { local_part: 'jos\u00e9' }, 'local_part'],
    ['a domain that is no hostname', { domain: 'not a domain' }, 'domain'],
    ['a domain of 254 characters', { domain: `${'a'.repeat(60)}.`.repeat(4) + 'abcdefghijklmnopq' }, 'domain'],
    ['an extra property', { local_part: 'x1', plan: 'gold' }, 'plan'],
    ['a prototype key', JSON.parse('{"__proto__": {"admin": true}}'), '__proto__'],
  ])('refuses %s with 400 on that field, charged', async (_name, body, field) => {
    const { accountId, apiKey } = await service.account();
    await expectError(await service.createEmail(apiKey, body), 400, 'invalid_request', field);
    expect(await service.remaining(accountId)).toBe(99);
  });

  it.each([
    ['malformed JSON', '{"local_part": ', {}],
    ['a JSON array', '[]', {}],
    ['a JSON string', '"hello"', {}],
    ['no body', '', {}],
    ['a text/plain body', '{}', { 'Content-Type': 'text/plain' }],
    ['a form body', 'local_part=x', { 'Content-Type': 'application/x-www-form-urlencoded' }],
  ])('refuses %s with 400', async (_name, body, headers) => {
    const { apiKey } = await service.account();
    await expectError(await service.createEmail(apiKey, body, undefined, headers), 400, 'invalid_request');
  });

  it('accepts a JSON content type with a charset', async () => {
    const { apiKey } = await service.account();
    const response = await service.createEmail(apiKey, {}, undefined, { 'Content-Type': 'application/json; charset=utf-8' });
    expect(response.status).toBe(201);
  });

  it('refuses a body over 16 KiB with 413 payload_too_large, uncharged, with the allowance headers', async () => {
    const { accountId, apiKey } = await service.account();
    const response = await service.createEmail(apiKey, { local_part: 'x'.repeat(17 * 1024) });
    await expectError(response, 413, 'payload_too_large');
    expect(response.headers.get('ratelimit-remaining')).toBe('100');
    expect(await service.remaining(accountId)).toBe(100);
  });

  it('refuses a query string with 400', async () => {
    const { apiKey } = await service.account();
    const response = await contractFetch(`${service.runtime.apiUrl}/v1/emails?local_part=x`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'query-string-key-01' },
      body: '{}',
    });
    await expectError(response, 400, 'invalid_request', 'local_part');
  });
});

describe('POST /v1/emails idempotency', () => {
  it('replays the original email for the same key and body, uncharged', async () => {
    const { accountId, apiKey } = await service.account();
    const first = await service.createEmail(apiKey, {}, 'replay-key-0000001');
    const original = (await json(first)).data;
    const again = await service.createEmail(apiKey, {}, 'replay-key-0000001');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(`/v1/emails/${original.id}`);
    expect((await json(again)).data).toEqual(original);
    expect(again.headers.get('ratelimit-remaining')).toBe('99');
    expect(await service.remaining(accountId)).toBe(99);
  });

  it('replays a create that took the last unit once the allowance is used up: 201, uncharged; anything charged is 429', async () => {
    const account = await service.account('free');
    const { accountId, apiKey } = account;
    await spend(account, 99);
    expect(await service.remaining(accountId)).toBe(1);
    const key = 'last-unit-key-0000001';
    const first = await service.createEmail(apiKey, { local_part: 'last-unit' }, key);
    expect(first.status).toBe(201);
    const original = (await json(first)).data;
    expect(await service.remaining(accountId)).toBe(0);

    // The client never saw that answer (a time-out) and retries as the contract tells it to.
    const replay = await service.createEmail(apiKey, { local_part: 'Last-Unit' }, key);
    expect(replay.status).toBe(201);
    expect((await json(replay)).data).toEqual(original);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(`/v1/emails/${original.id}`);
    expect(replay.headers.get('ratelimit-remaining')).toBe('0');
    expect(await service.remaining(accountId)).toBe(0);

    for (const refused of [
      await service.createEmail(apiKey, { local_part: 'last-unit' }, 'another-key-00000001'),
      await service.createEmail(apiKey, { local_part: 'other-body' }, key),
      await service.createEmail(apiKey, { bogus: true }, key),
      await service.createEmail(apiKey, { local_part: 'last-unit' }, 'short'),
    ]) {
      await expectError(refused, 429, 'rate_limit_exceeded');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    }
    expect(await service.remaining(accountId)).toBe(0);
    const usage = (await json(await service.request('/v1/usage', { key: apiKey }))).data;
    expect(usage).toMatchObject({ used_requests: 100, remaining_requests: 0 });
  });

  it('answers the retry of a refused create with 429 once the allowance is used up: it would be charged', async () => {
    const holder = await service.account('paid');
    await service.createEmail(holder.apiKey, { local_part: 'refused-at-the-end' });
    const account = await service.account('free');
    const { accountId, apiKey } = account;
    await spend(account, 99);
    const key = 'refused-last-unit-0001';
    await expectError(await service.createEmail(apiKey, { local_part: 'refused-at-the-end' }, key), 409, 'address_unavailable');
    expect(await service.remaining(accountId)).toBe(0);
    await expectError(await service.createEmail(apiKey, { local_part: 'refused-at-the-end' }, key), 429, 'rate_limit_exceeded');
  });

  it('treats an equivalent body as the same request: key order, case, whitespace', async () => {
    const { apiKey } = await service.account();
    const key = 'equivalent-key-000001';
    const first = await json(await service.createEmail(apiKey, { local_part: 'equal', domain: 'tempmail.localhost' }, key));
    const again = await service.createEmail(apiKey, '{ "domain": "TEMPMAIL.localhost", "local_part": "Equal" }', key);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect((await json(again)).data.id).toBe(first.data.id);
  });

  it('answers the same key with another body with 409 idempotency_key_reused, charged', async () => {
    const { accountId, apiKey } = await service.account();
    await service.createEmail(apiKey, { local_part: 'first-body' }, 'reused-key-0000001');
    const response = await service.createEmail(apiKey, { local_part: 'second-body' }, 'reused-key-0000001');
    await expectError(response, 409, 'idempotency_key_reused');
    expect(response.headers.get('ratelimit-remaining')).toBe('98');
    expect(await service.remaining(accountId)).toBe(98);
  });

  it('scopes keys to the account', async () => {
    const first = await service.account();
    const second = await service.account();
    const a = await json(await service.createEmail(first.apiKey, {}, 'shared-key-00000001'));
    const b = await service.createEmail(second.apiKey, {}, 'shared-key-00000001');
    expect(b.headers.get('idempotency-replayed')).toBe('false');
    expect((await json(b)).data.id).not.toBe(a.data.id);
  });

  it('forgets a key after 24 hours', async () => {
    const { apiKey } = await service.account();
    const first = await json(await service.createEmail(apiKey, {}, 'day-old-key-0000001'));
    service.clock.advance(day - 1);
    expect((await json(await service.createEmail(apiKey, {}, 'day-old-key-0000001'))).data.id).toBe(first.data.id);
    service.clock.advance(1);
    const later = await service.createEmail(apiKey, {}, 'day-old-key-0000001');
    expect(later.headers.get('idempotency-replayed')).toBe('false');
    expect((await json(later)).data.id).not.toBe(first.data.id);
  });

  it.each([
    ['missing', undefined],
    ['too short', 'fifteen-chars-x'],
    ['too long', 'k'.repeat(256)],
    ['holding a space', 'has a space 0000001'],
    ['holding a tab', 'has\ttab-0000000001'],
  ])('refuses an Idempotency-Key %s with 400 on that header', async (_name, key) => {
    const { apiKey } = await service.account();
    const headers: Record<string, string> = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
    if (key !== undefined) headers['Idempotency-Key'] = key;
    const response = await contractFetch(`${service.runtime.apiUrl}/v1/emails`, { method: 'POST', headers, body: '{}' });
    await expectError(response, 400, 'invalid_request', 'Idempotency-Key');
  });

  it.each([
    ['twice under one name', ['Idempotency-Key', 'repeated-key-000001', 'Idempotency-Key', 'repeated-key-000002']],
    ['twice with the same value', ['Idempotency-Key', 'repeated-key-000003', 'Idempotency-Key', 'repeated-key-000003']],
    ['under two spellings of its name', ['Idempotency-Key', 'repeated-key-000004', 'idempotency-key', 'repeated-key-000005']],
  ])('refuses an Idempotency-Key given %s with 400 on that header, creating nothing', async (_name, idempotencyHeaders) => {
    const { accountId, apiKey } = await service.account();
    const response = await postWithHeaders(['Authorization', `Bearer ${apiKey}`, 'Content-Type', 'application/json', ...idempotencyHeaders]);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect(response.body.error.details).toEqual([{ field: 'Idempotency-Key', reason: 'must be given at most once' }]);
    for (const key of ['repeated-key-000001', 'repeated-key-000002', 'repeated-key-000005']) {
      const single = await service.createEmail(apiKey, {}, key);
      expect(single.headers.get('idempotency-replayed')).toBe('false');
    }
    expect(await service.remaining(accountId)).toBe(96);
  });

  it('accepts keys of exactly 16 and 255 printable characters', async () => {
    const { apiKey } = await service.account();
    expect((await service.createEmail(apiKey, {}, '!'.repeat(16))).status).toBe(201);
    expect((await service.createEmail(apiKey, {}, '~'.repeat(255))).status).toBe(201);
  });

  it('refuses an API key used as the Idempotency-Key', async () => {
    const { apiKey } = await service.account();
    await expectError(await service.createEmail(apiKey, {}, apiKey), 400, 'invalid_request', 'Idempotency-Key');
  });
});

/**
 * POST /v1/emails with header lines sent exactly as listed (name, value, name, value…): a repeated
 * name goes out as repeated lines, and names differing only in case stay apart (fetch would join
 * or merge them).
 */
async function postWithHeaders(headerLines: string[]): Promise<{ status: number; body: any }> {
  const answer = await contractRequest(service.runtime.apiUrl, '/v1/emails', { method: 'POST', headers: ['Host', new URL(service.runtime.apiUrl).host, ...headerLines], body: '{}' });
  return { status: answer.status, body: JSON.parse(answer.body.toString('utf8')) };
}
