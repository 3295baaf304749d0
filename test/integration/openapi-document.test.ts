import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

const onDisk = readFileSync(join(__dirname, '..', '..', 'openapi', 'openapi.yaml'));

describe('GET /openapi.yaml', () => {
  it('serves the document to anyone, as YAML, with a request id and a public cache directive', async () => {
    const response = await service.request('/openapi.yaml');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/yaml');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]{16,80}$/);
    expect(response.headers.get('ratelimit-remaining')).toBeNull();
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.equals(onDisk)).toBe(true);
    expect(parse(body.toString('utf8'))).toMatchObject({ openapi: '3.1.0', info: { title: 'tempmail API' } });
  });

  it('never charges a key sent along, and never refuses one', async () => {
    const { accountId, apiKey } = await service.account();
    for (const key of [apiKey, 'tm_local_not-a-real-key']) {
      expect((await service.request('/openapi.yaml', { key })).status).toBe(200);
    }
    expect(await service.remaining(accountId)).toBe(100);
  });

  it('answers a matching If-None-Match with 304 and no body', async () => {
    const etag = (await service.request('/openapi.yaml')).headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const response = await service.request('/openapi.yaml', { headers: { 'If-None-Match': etag! } });
    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe(etag);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await response.text()).toBe('');
  });

  it('is served at that one path and method only: elsewhere the unknown-route 404', async () => {
    for (const [method, path] of [
      ['POST', '/openapi.yaml'],
      ['GET', '/v1/openapi.yaml'],
      ['GET', '/openapi.yml'],
    ] as const) {
      const response = await service.request(path, { method });
      expect(response.status).toBe(404);
      expect((await json(response)).error.code).toBe('resource_not_found');
    }
  });
});
