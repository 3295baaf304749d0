import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { routes } from '../../../lambdas/api/routes';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const document: any = parse(readFileSync(join(__dirname, '..', '..', '..', 'openapi', 'openapi.yaml'), 'utf8'));

describe('openapi/openapi.yaml and the route table', () => {
  it('describe the same operations: one per /v1 route, named by the route id (the console API is the dashboard\'s own, not the contract\'s)', () => {
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { operationId: string }>).map(([method, operation]) => ({
        id: operation.operationId,
        method: method.toUpperCase(),
        path,
      })),
    );
    const table = routes.filter(({ path }) => path.startsWith('/v1/')).map(({ id, method, path }) => ({ id, method, path }));
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(documented.sort(byId)).toEqual(table.sort(byId));
  });

  it('secures every operation with the bearer key, and documents 401, 403, 429, 500 and 503 on each', () => {
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toEqual([{ apiKey: [] }]);
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item as Record<string, { security?: unknown; responses: object }>)) {
        expect(operation.security).toBeUndefined();
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403', '429', '500', '503']));
      }
    }
  });
});
