import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  TempmailClient,
  asEmailId,
  asMessageId,
  errorCodes,
  isErrorCode,
  isNotFound,
  type Email,
  type ErrorCode,
  type Page,
  type MessageListItem,
  type Usage,
} from '../../../client/src';

/**
 * The client's types say what the document says. Lines marked `@ts-expect-error` are the
 * mistakes the types must refuse: `npm run typecheck` fails when one of them compiles.
 */

const document = parse(readFileSync(join(__dirname, '..', '..', '..', 'openapi', 'openapi.yaml'), 'utf8'));

/** The client answering every request with one canned answer, recording what it was given. */
function clientAnswering(status: number, body: unknown, seen: RequestInit[] = []) {
  return new TempmailClient({
    apiKey: 'tm_local_test',
    retry: { maxServerRetries: 0 },
    fetch: async (_input, init) => {
      seen.push(init ?? {});
      return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
    },
  });
}

describe('the client types', () => {
  it("types TempmailError.code as the document's union of codes, with guards that narrow", async () => {
    const documented = Object.values<{ properties?: { error?: { properties?: { code?: { const?: string; enum?: string[] } } } } }>(document.components.schemas)
      .map((schema) => schema.properties?.error?.properties?.code)
      .flatMap((code) => (code ? (code.enum ?? [code.const!]) : []));
    expect([...errorCodes].sort()).toEqual([...new Set(documented)].sort());

    const error = await clientAnswering(404, { error: { code: 'resource_not_found', message: 'No.', request_id: 'req_0123456789abcdef' } })
      .getEmail('eml_0123456789')
      .catch((caught: unknown) => caught);
    expect(isNotFound(error)).toBe(true);
    expect(isErrorCode(error, 'resource_not_found')).toBe(true);
    expect(isErrorCode(error, 'address_unavailable')).toBe(false);
    if (isErrorCode(error, 'resource_not_found')) {
      const code: 'resource_not_found' = error.code;
      expect(code).toBe('resource_not_found');
    }
    // @ts-expect-error: not a code of the document
    const wrong: ErrorCode = 'not_found';
    void wrong;
  });

  it('brands ids, so that an address or a message id is not taken for an email id', async () => {
    const email = { id: 'eml_0123456789', address: 'a@tempmail.localhost' } as unknown as Email;
    const client = clientAnswering(200, { data: [], pagination: { has_more: false } });
    await client.listMessages(email.id);
    // @ts-expect-error: an address is not an email id
    await client.listMessages(email.address).catch(() => undefined);
    // @ts-expect-error: a message id is not an email id
    await client.getEmail('msg_0123456789').catch(() => undefined);
    // @ts-expect-error: an email id is not a message id
    await client.getMessage(email.id).catch(() => undefined);

    expect(asEmailId('eml_0123456789')).toBe('eml_0123456789');
    expect(() => asEmailId('a@tempmail.localhost')).toThrow(TypeError);
    expect(() => asMessageId('eml_0123456789')).toThrow(/Not a message id/);
  });

  it('makes pagination a union discriminated by has_more, and the usage record one by plan', () => {
    const cursorOf = (page: Page<MessageListItem>): string | undefined => {
      // @ts-expect-error: a last page has no next_cursor
      const unchecked: string = page.pagination.next_cursor;
      void unchecked;
      return page.pagination.has_more ? page.pagination.next_cursor : undefined;
    };
    expect(cursorOf({ data: [], pagination: { has_more: true, next_cursor: 'abc' } })).toBe('abc');
    expect(cursorOf({ data: [], pagination: { has_more: false } })).toBeUndefined();
    // @ts-expect-error: a page with more has its cursor
    const broken: Page<MessageListItem> = { data: [], pagination: { has_more: true } };
    void broken;

    // @ts-expect-error: the free plan counts a lifetime allowance
    const mixed: Usage = { plan: 'free', allowance_mode: 'balance', used_requests: 0, remaining_requests: 100, additional_requests: 0 };
    void mixed;
  });

  it('passes a dispatcher (a proxy agent) to fetch with every request', async () => {
    const seen: RequestInit[] = [];
    const dispatcher = { dispatch: () => true } as unknown as NonNullable<RequestInit['dispatcher']>;
    const client = new TempmailClient({
      apiKey: 'tm_local_test',
      dispatcher,
      fetch: async (_input, init) => {
        seen.push(init ?? {});
        return new Response(JSON.stringify({ data: { plan: 'free', allowance_mode: 'lifetime', used_requests: 0, remaining_requests: 100, additional_requests: 0 } }), { status: 200 });
      },
    });
    await client.getUsage();
    expect(seen[0]!.dispatcher).toBe(dispatcher);
  });
});
