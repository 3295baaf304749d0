import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { serviceStartTimeoutMs } from '../support/test-runtime';

let service: TestService;
const day = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  service = await startTestService();
}, serviceStartTimeoutMs);
afterAll(() => service.close());

async function created(key: string, body: unknown = {}) {
  return (await json(await service.createEmail(key, body))).data;
}

async function expectNotFound(response: Response) {
  expect(response.status).toBe(404);
  const body = await json(response);
  expect(body).toEqual({
    error: { code: 'resource_not_found', message: 'The requested resource does not exist.', request_id: expect.any(String) },
  });
  return body;
}

describe('GET /v1/emails/{email_id}', () => {
  it('returns the owner its email, as created, with a strong ETag', async () => {
    const { apiKey } = await service.account();
    const email = await created(apiKey);
    const response = await service.request(`/v1/emails/${email.id}`, { key: apiKey });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ data: email });
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
  });

  it('answers a matching If-None-Match with 304, charged', async () => {
    const { accountId, apiKey } = await service.account();
    const email = await created(apiKey);
    const tag = (await service.request(`/v1/emails/${email.id}`, { key: apiKey })).headers.get('etag')!;
    const before = await service.remaining(accountId);
    const response = await service.request(`/v1/emails/${email.id}`, { key: apiKey, headers: { 'If-None-Match': tag } });
    expect(response.status).toBe(304);
    expect(await service.remaining(accountId)).toBe(before - 1);
  });

  it('gives another account, an absent id and an expired email the same 404, charged', async () => {
    const owner = await service.account();
    const other = await service.account();
    const email = await created(owner.apiKey);
    const unowned = await expectNotFound(await service.request(`/v1/emails/${email.id}`, { key: other.apiKey }));
    const absent = await expectNotFound(await service.request('/v1/emails/eml_AAAAAAAAAAAAAAAAAAAAAA', { key: other.apiKey }));
    expect({ ...unowned.error, request_id: '' }).toEqual({ ...absent.error, request_id: '' });
    expect(await service.remaining(other.accountId)).toBe(98);
  });

  it('stops showing a reservation at its expires_at, and never revives it', async () => {
    const { apiKey } = await service.account('paid');
    const email = await created(apiKey);
    service.clock.advance(30 * day - 1);
    expect((await service.request(`/v1/emails/${email.id}`, { key: apiKey })).status).toBe(200);
    service.clock.advance(1);
    await expectNotFound(await service.request(`/v1/emails/${email.id}`, { key: apiKey }));
    service.clock.advance(365 * day);
    await expectNotFound(await service.request(`/v1/emails/${email.id}`, { key: apiKey }));
  });

  it.each(['not-an-id', 'msg_AAAAAAAAAAAAAAAAAAAAAA', 'eml_short', `eml_${'A'.repeat(65)}`])(
    'refuses the malformed id %j with 400 on email_id',
    async (id) => {
      const { apiKey } = await service.account();
      const response = await service.request(`/v1/emails/${id}`, { key: apiKey });
      expect(response.status).toBe(400);
      expect((await json(response)).error.details).toEqual([expect.objectContaining({ field: 'email_id' })]);
    },
  );
});
