import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { routes } from '../../lambdas/api/routes';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { readReferencePage, referencePageHazards } from '../support/reference-page';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

/** Each (method, path) is the gateway's unknown-route 404. */
async function expectUnknownRoute(requests: [string, string][]): Promise<void> {
  for (const [method, path] of requests) {
    const response = await service.request(path, { method });
    expect(response.status).toBe(404);
    expect((await json(response)).error.code).toBe('resource_not_found');
  }
}

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
    await expectUnknownRoute([
      ['POST', '/openapi.yaml'],
      ['GET', '/v1/openapi.yaml'],
      ['GET', '/openapi.yml'],
    ]);
  });
});

/** The document as the reference should show it: each operation with its statuses, and every error code. */
const described = parse(onDisk.toString('utf8')) as {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, { properties?: { error?: { properties?: { code?: { const?: string; enum?: string[] } } } } }> };
};
const operations = Object.entries(described.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, ...operation })));
const errorCodes = Object.values(described.components.schemas).flatMap((schema) => {
  const code = schema.properties?.error?.properties?.code;
  return code ? [...(code.const ? [code.const] : []), ...(code.enum ?? [])] : [];
});

describe('GET /docs: the API reference, built from the document', () => {
  let html: string;
  let response: Response;
  beforeAll(async () => {
    response = await service.request('/docs');
    html = await response.text();
  });

  it('serves one HTML page to anyone, uncharged, under a CSP that allows its own stylesheet and nothing else', async () => {
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(response.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]{16,80}$/);
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{32}"$/);

    const stylesheet = await service.request('/docs/reference.css');
    expect(stylesheet.status).toBe(200);
    expect(stylesheet.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(stylesheet.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await stylesheet.text()).toContain('body');

    const { accountId, apiKey } = await service.account();
    expect((await service.request('/docs', { key: apiKey })).status).toBe(200);
    expect(await service.remaining(accountId)).toBe(100);
  });

  it('runs nothing and loads nothing but its stylesheet: no script, no handler, no link off the page but the document', () => {
    const page = readReferencePage(html);
    expect(referencePageHazards(page, ['/docs/reference.css', '/openapi.yaml'])).toEqual([]);
    expect(html).not.toMatch(/<script/i);
  });

  it('shows every operation with its method and path, and every status it documents', () => {
    const page = readReferencePage(html);
    expect(operations.map((operation) => operation.operationId).sort()).toEqual(routes.filter((route) => !('auth' in route)).map((route) => route.id).sort());
    for (const operation of operations) {
      const id = `op-${operation.operationId}`;
      expect(page.textOf(`${id}-title`)).toBe(`${operation.method.toUpperCase()} ${operation.path}`);
      for (const status of Object.keys(operation.responses)) {
        expect(page.within(`${id}-status-${status}`, id)).toBe(true);
        expect(page.textOf(`${id}-status-${status}`)).toContain(status);
      }
    }
  });

  it('lists every error code of the document in its error table, and every schema', () => {
    const page = readReferencePage(html);
    expect(errorCodes.length).toBeGreaterThanOrEqual(13);
    for (const code of errorCodes) expect(page.textOf('errors')).toContain(code);
    for (const name of Object.keys(described.components.schemas)) expect(page.textOf(`schema-${name}-title`)).toBe(name);
    expect(page.textOf('authentication')).toContain('bearer');
  });

  it('answers a matching If-None-Match with 304, and other methods and paths with the unknown-route 404', async () => {
    const etag = response.headers.get('etag')!;
    const again = await service.request('/docs', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    await expectUnknownRoute([
      ['POST', '/docs'],
      ['GET', '/docs/'],
      ['GET', '/docs/index.html'],
      ['GET', '/v1/docs'],
    ]);
  });
});
