import { json } from '../support/json';
import { addDomain } from '../../lambdas/core/domains';
import { startTestService, type TestService } from '../support/local-service';
import { stackDomains } from '../support/stack-context';
import { serviceStartTimeoutMs, testRuntime } from '../support/test-runtime';

let service: TestService;
const extraDomains = ['alpha.test', 'bravo.test', 'charlie.test', 'delta.test'];

beforeAll(async () => {
  service = await startTestService({ domains: ['tempmail.localhost', 'mail.example.test'] });
  for (const domain of extraDomains) await addDomain(domain, service.runtime.services);
}, serviceStartTimeoutMs);
afterAll(() => service.close());

async function page(key: string, query = '') {
  const response = await service.request(`/v1/domains${query}`, { key });
  return { response, body: await json(response) };
}

describe('GET /v1/domains', () => {
  it('lists every domain with its switches in name order, default limit 20', async () => {
    const { apiKey } = await service.account();
    const { response, body } = await page(apiKey);
    expect(response.status).toBe(200);
    // npm start's intake receives for every domain of its table. Where SES receives, only the
    // domains of the receipt rule do (given at deployment): the others added to the table since
    // are listed as not receiving, so that no address is created on a domain that cannot receive.
    const receives = (domain: string) => testRuntime === 'npm start' || stackDomains.includes(domain);
    expect(body).toEqual({
      data: ['alpha.test', 'bravo.test', 'charlie.test', 'delta.test', 'mail.example.test', 'tempmail.localhost'].map(
        (domain) => ({ domain, create_enabled: true, receive_enabled: receives(domain) }),
      ),
      pagination: { has_more: false },
    });
  });

  it('pages through with signed cursors until has_more is false, each page charged', async () => {
    const { accountId, apiKey } = await service.account();
    const seen: string[] = [];
    let cursor: string | undefined;
    let requests = 0;
    do {
      const { response, body } = await page(apiKey, `?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      requests++;
      expect(response.status).toBe(200);
      expect(body.data.length).toBeLessThanOrEqual(4);
      seen.push(...body.data.map((record: { domain: string }) => record.domain));
      cursor = body.pagination.next_cursor;
      expect(body.pagination.has_more).toBe(cursor !== undefined);
    } while (cursor);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    expect(requests).toBe(2);
    expect(await service.remaining(accountId)).toBe(100 - requests);
  });

  async function firstCursor(key: string, limit = 2): Promise<string> {
    return (await page(key, `?limit=${limit}`)).body.pagination.next_cursor;
  }

  async function expectCursorRejected(key: string, query: string) {
    const { response, body } = await page(key, query);
    expect(response.status).toBe(400);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details).toEqual([expect.objectContaining({ field: 'cursor' })]);
  }

  it('rejects a tampered cursor with 400 on field cursor, charged', async () => {
    const { accountId, apiKey } = await service.account();
    const cursor = await firstCursor(apiKey);
    const [payload, signature] = cursor.split('.');
    const decoded = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    decoded.p = 'zzz';
    const altered = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${signature}`;
    await expectCursorRejected(apiKey, `?limit=2&cursor=${encodeURIComponent(altered)}`);
    await expectCursorRejected(apiKey, `?limit=2&cursor=garbage`);
    expect(await service.remaining(accountId)).toBe(97);
  });

  it('rejects a cursor used with another limit or by another account', async () => {
    const owner = await service.account();
    const other = await service.account();
    const cursor = encodeURIComponent(await firstCursor(owner.apiKey));
    await expectCursorRejected(owner.apiKey, `?limit=3&cursor=${cursor}`);
    await expectCursorRejected(owner.apiKey, `?cursor=${cursor}`);
    await expectCursorRejected(other.apiKey, `?limit=2&cursor=${cursor}`);
    expect((await page(owner.apiKey, `?limit=2&cursor=${cursor}`)).response.status).toBe(200);
  });

  it('rejects a cursor an hour after it was issued', async () => {
    const { apiKey } = await service.account();
    const cursor = encodeURIComponent(await firstCursor(apiKey));
    service.clock.advance(60 * 60 * 1000);
    await expectCursorRejected(apiKey, `?limit=2&cursor=${cursor}`);
  });

  it.each(['0', '101', '-1', '1.5', 'ten', '', '007'])('rejects limit=%j with 400 on field limit', async (limit) => {
    const { accountId, apiKey } = await service.account();
    const { response, body } = await page(apiKey, `?limit=${limit}`);
    expect(response.status).toBe(400);
    expect(body.error).toMatchObject({ code: 'invalid_request', details: [expect.objectContaining({ field: 'limit' })] });
    expect(await service.remaining(accountId)).toBe(99);
  });

  it('accepts limit 1 and 100', async () => {
    const { apiKey } = await service.account();
    expect((await page(apiKey, '?limit=1')).body.data).toHaveLength(1);
    expect((await page(apiKey, '?limit=100')).body.data).toHaveLength(6);
  });

  it('rejects an unknown parameter with 400 naming it', async () => {
    const { apiKey } = await service.account();
    const { response, body } = await page(apiKey, '?limt=5');
    expect(response.status).toBe(400);
    expect(body.error.details).toEqual([{ field: 'limt', reason: 'is not a recognized parameter' }]);
  });

  it('answers If-None-Match with 304 and no body, charged', async () => {
    const { accountId, apiKey } = await service.account();
    const first = await service.request('/v1/domains', { key: apiKey });
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await service.request('/v1/domains', { key: apiKey, headers: { 'If-None-Match': tag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(tag);
    expect(again.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await service.remaining(accountId)).toBe(98);
  });
});
