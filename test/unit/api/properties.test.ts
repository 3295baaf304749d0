import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ApiRequest, RouteHandler } from '../../../lambdas/api/api-types';
import { createApiHandler } from '../../../lambdas/api/create-api-handler';
import { contentDisposition } from '../../../lambdas/api/file-headers';
import { matchRoute, routes, type RouteDefinition } from '../../../lambdas/api/routes';
import type { ApiServices } from '../../../lambdas/composition/services';
import { readCursor, signCursor } from '../../../lambdas/core/cursors';
import { InvalidRequest, PolicyViolation } from '../../../lambdas/core/errors';
import { parseIdempotencyKey } from '../../../lambdas/core/idempotency';
import { memoryLogger } from '../../support/memory-logger';
import { accountFixture, stubPorts } from '../../support/port-stubs';
import { allowContext, lambdaContext, proxyEvent } from '../../support/proxy-events';
import { TestClock } from '../../support/test-clock';

/**
 * Cases per property (issue 17: at least 10,000 each). Inside a property the checks are
 * node:assert's, not Jest's `expect`: each `expect` call builds an error object for its stack
 * whether or not it fails, which was half the processor time of 60,000 cases. A failing check
 * still fails the property, and fast-check reports the shrunk counterexample with the message.
 */
const numRuns = 10_000;

/** The contract's regular expressions, written out here as the contract states them. */
const contract = {
  idempotencyKey: /^[\x21-\x7E]+$/,
  localPart: /^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$/,
  requestId: /^req_[A-Za-z0-9_-]{16,80}$/,
};

/** Statuses the contract's error table lists. */
const errorStatuses = new Set([400, 401, 403, 404, 409, 413, 422, 429, 500, 503]);

/** Thrown by every storage port below: a request that gets this far has passed validation. */
class ReachedStorage extends Error {}

/** A port whose every method throws `ReachedStorage`. */
const storagePort = new Proxy({}, { get: () => async () => Promise.reject(new ReachedStorage()) });

/** The API's services with storage that cannot be reached: validation alone decides. */
function validationOnlyServices(): ApiServices {
  const { ledger } = stubPorts({ account: accountFixture() });
  const known: Record<string, unknown> = {
    ledger,
    logger: memoryLogger(),
    clock: new TestClock(),
    cursorSecret: 'property-secret',
    env: 'local',
    messageTtlSeconds: 900,
    emailTtlSeconds: 2_592_000,
  };
  return new Proxy(known, { get: (target, name: string) => (name in target ? target[name] : storagePort) }) as unknown as ApiServices;
}

const routeModules = new Map<string, RouteHandler>();
beforeAll(async () => {
  for (const route of routes as readonly RouteDefinition[]) {
    const module = (await import(`../../../lambdas/api/handlers/${route.module}`)) as { route: RouteHandler };
    routeModules.set(route.id, module.route);
  }
});

/** Text a hostile client sends: any code point, control characters and JSON-looking fragments included. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 300 }),
  fc.constantFrom('', ' ', '0', '-1', '101', '1e2', 'null', '{}', '[]', '{"local_part":"a"}', '%', '%zz', '\r\n', 'a'.repeat(5000)),
);
const queryArbitrary = fc.dictionary(fc.oneof(fc.constantFrom('limit', 'cursor', 'domain', 'x'), hostileText), hostileText, { maxKeys: 3 });
const headerArbitrary = fc.record(
  {
    'content-type': fc.oneof(fc.constant('application/json'), hostileText),
    'idempotency-key': fc.oneof(fc.constant('0123456789abcdef-ok'), hostileText),
    'if-none-match': hostileText,
  },
  { requiredKeys: [] },
);
const bodyArbitrary = fc.oneof(
  fc.constant(null),
  hostileText,
  fc.json({ maxDepth: 3 }),
  fc.record({ local_part: fc.oneof(hostileText, fc.jsonValue()), domain: fc.oneof(hostileText, fc.jsonValue()) }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
);

describe('request validation (fast-check)', () => {
  it(`never answers outside the error shape, on any route, with any query, headers, path ids and body (${numRuns} cases)`, async () => {
    const services = validationOnlyServices();
    const handlers = new Map(
      (routes as readonly RouteDefinition[]).map((route) => [route.id, createApiHandler(routeModules.get(route.id)!, () => services)]),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(routes as readonly RouteDefinition[])),
        queryArbitrary,
        headerArbitrary,
        bodyArbitrary,
        hostileText,
        async (route, query, headers, body, pathId) => {
          const pathParameters = Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1]!, pathId]));
          const event = proxyEvent(route, allowContext(), {
            queryStringParameters: Object.keys(query).length ? query : null,
            headers,
            body,
            pathParameters: Object.keys(pathParameters).length ? pathParameters : null,
          });
          const response = await handlers.get(route.id)!(event, lambdaContext());
          if (response.statusCode < 400) return;
          assert.ok(errorStatuses.has(response.statusCode), `status ${response.statusCode} is not in the contract's error table`);
          const parsed = JSON.parse(String(response.body)) as Record<string, unknown>;
          assert.deepEqual(Object.keys(parsed), ['error']);
          const error = parsed.error as Record<string, unknown>;
          assert.deepEqual(Object.keys(error).filter((k) => !['code', 'message', 'request_id', 'details'].includes(k)), []);
          assert.equal(typeof error.code, 'string');
          assert.equal(typeof error.message, 'string');
          assert.equal(typeof error.request_id, 'string');
          assert.match(String(error.request_id), contract.requestId);
          if (error.details !== undefined) {
            for (const detail of error.details as Record<string, unknown>[]) {
              assert.deepEqual(Object.keys(detail).sort(), ['field', 'reason']);
              assert.equal(typeof detail.field, 'string');
              assert.equal(typeof detail.reason, 'string');
            }
          }
          if (response.statusCode === 503 || response.statusCode === 429) assert.match(String(response.headers?.['Retry-After']), /^[1-9]\d*$/);
        },
      ),
      { numRuns },
    );
  }, 120_000);
});

describe('cursors (fast-check)', () => {
  const secret = 'cursor-property-secret';
  const context = { accountId: 'acc_1', route: 'listMessages', pathId: 'eml_0123456789', limit: 20 };
  const now = new Date('2026-11-22T12:00:00.000Z');
  const alphabet = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/% '.split(''));

  /** A change to a cursor: replace, insert or delete a character, cut it short, or add to it. */
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), char: alphabet }),
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), char: alphabet }),
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('append' as const), text: fc.string({ minLength: 1, maxLength: 8 }) }),
  );

  function mutate(cursor: string, change: { kind: string; at?: number; char?: string; text?: string }): string {
    const at = (change.at ?? 0) % (cursor.length + 1);
    switch (change.kind) {
      case 'replace':
        return cursor.slice(0, at) + change.char + cursor.slice(at + 1);
      case 'insert':
        return cursor.slice(0, at) + change.char + cursor.slice(at);
      case 'delete':
        return cursor.slice(0, at) + cursor.slice(at + 1);
      case 'truncate':
        return cursor.slice(0, at % cursor.length);
      default:
        return cursor + change.text;
    }
  }

  it(`answers 400 on field cursor for any mutation of a valid cursor (${numRuns} cases)`, () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), (position, changes) => {
        const cursor = signCursor(secret, context, position, now);
        assert.equal(readCursor(secret, cursor, context, now), position);
        const changed = changes.reduce(mutate, cursor);
        fc.pre(changed !== cursor);
        let thrown: unknown;
        try {
          readCursor(secret, changed, context, now);
        } catch (error) {
          thrown = error;
        }
        assert.ok(thrown instanceof InvalidRequest, `not an InvalidRequest: ${String(thrown)}`);
        const details = thrown.details ?? [];
        assert.deepEqual(details.map((detail) => detail.field), ['cursor']);
        assert.equal(typeof details[0]!.reason, 'string');
        assert.deepEqual(Object.keys(details[0]!).sort(), ['field', 'reason']);
      }),
      { numRuns },
    );
  });
});

describe('validators against the contract (fast-check)', () => {
  const printableOrNot = fc.string({
    unit: fc.oneof(fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), fc.constantFrom(' ', '\t', '\u007f', '\u00e9', '\u0000', '\u2028')),
    minLength: 0,
    maxLength: 300,
  });

  it(`the Idempotency-Key validator accepts exactly the contract's pattern and length (${numRuns} cases)`, () => {
    fc.assert(
      fc.property(fc.oneof(printableOrNot, fc.string({ unit: 'binary', maxLength: 40 })), (value) => {
        const contractAccepts = contract.idempotencyKey.test(value) && value.length >= 16 && value.length <= 255;
        let accepted = true;
        try {
          parseIdempotencyKey(value);
        } catch (error) {
          assert.ok(error instanceof InvalidRequest, `not an InvalidRequest: ${String(error)}`);
          assert.equal(error.details?.[0]?.field, 'Idempotency-Key');
          accepted = false;
        }
        // The contract's one further rule: a key must not hold an API key (never generated here).
        assert.equal(accepted, contractAccepts);
      }),
      { numRuns },
    );
  });

  it(`the local_part validator accepts exactly the contract's pattern, after trimming and lower-casing, before the policy rules (${numRuns} cases)`, async () => {
    const route = routeModules.get('createEmail')!;
    const services = validationOnlyServices();
    const localPart = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'abcz09._-AZ @+é\u0000\t'.split('')), maxLength: 70 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
    );
    await fc.assert(
      fc.asyncProperty(localPart, async (value) => {
        const request = {
          method: 'POST',
          path: '/v1/emails',
          query: {},
          headers: { 'content-type': 'application/json', 'idempotency-key': '0123456789abcdef-key' },
          headerValues: { 'content-type': ['application/json'], 'idempotency-key': ['0123456789abcdef-key'] },
          body: JSON.stringify({ local_part: value }),
          pathParameters: {},
          account: { accountId: 'acc_1' },
        } as unknown as ApiRequest;
        let outcome: 'accepted' | 'rejected';
        try {
          await route(request, services);
          throw new Error('storage was not reached');
        } catch (error) {
          // Past the pattern come the policy rules (reserved names, `..`): 422, not a pattern refusal.
          if (error instanceof ReachedStorage || error instanceof PolicyViolation) outcome = 'accepted';
          else {
            assert.ok(error instanceof InvalidRequest, `not an InvalidRequest: ${String(error)}`);
            const fields = new Set(error.details?.map((d) => d.field));
            assert.deepEqual([...fields], ['local_part']);
            outcome = 'rejected';
          }
        }
        const normalized = value.trim().toLowerCase();
        assert.equal(outcome, contract.localPart.test(normalized) ? 'accepted' : 'rejected');
      }),
      { numRuns },
    );
  });
});

describe('Content-Disposition (fast-check)', () => {
  const filename = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.string({ unit: fc.constantFrom(...'ab.\\/"\'\r\n\t;=%*()é ..'.split('')), maxLength: 40 }),
    fc.constantFrom('../../etc/passwd', '..\\..\\boot.ini', 'a"; filename="evil.exe', 'x\r\nSet-Cookie: a=b', '.htaccess', ''),
  );

  it(`built from any filename holds no CR, LF, unescaped quote or path separator (${numRuns} cases)`, () => {
    fc.assert(
      fc.property(filename, (name) => {
        const header = contentDisposition(name);
        assert.doesNotMatch(header, /[\r\n\u0000]/);
        const parts = /^attachment; filename="([^"]*)"; filename\*=UTF-8''(.*)$/.exec(header);
        assert.ok(parts, `not the header's shape: ${JSON.stringify(header)}`);
        const [, ascii, encoded] = parts;
        // The quoted name: letters, digits, dot, dash, underscore only; never hidden.
        assert.match(ascii!, /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/);
        // RFC 5987 attr-chars and percent escapes only: no quote, space, separator or path character.
        assert.match(encoded!, /^(?:[A-Za-z0-9!#$&+.^_`|~-]|%[0-9A-F]{2})+$/);
        const decoded = decodeURIComponent(encoded!);
        assert.doesNotMatch(decoded, /[\\/\r\n]/);
      }),
      { numRuns },
    );
  });
});

describe('the route matcher (fast-check)', () => {
  const pathArbitrary = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 120 }),
    fc.array(fc.oneof(fc.constantFrom('v1', 'emails', 'messages', 'source', 'attachments', 'domains', 'usage', '', '%', '%E0%A4%A', '..', '%2F'), fc.string({ maxLength: 12 })), { maxLength: 7 }).map(
      (segments) => `/${segments.join('/')}`,
    ),
  );

  it(`never throws on any method and path, and matches only paths of the table's shape (${numRuns} cases)`, () => {
    fc.assert(
      fc.property(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'get', ''), pathArbitrary, (method, path) => {
        const match = matchRoute(method, path, routes);
        if (match) {
          assert.equal(match.route.method, method);
          assert.equal(path.split('/').length, match.route.path.split('/').length);
        }
      }),
      { numRuns },
    );
  });
});
