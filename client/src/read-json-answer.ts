import { UnexpectedResponseError } from './errors';

/**
 * The most bytes of a JSON answer the client reads: 8 MiB. Every JSON answer of the service comes
 * from a buffered Lambda response, which AWS caps at 6 MB (Lambda `Invoke`: "For synchronous
 * invocations, the maximum payload size is 6 MB"); file bodies (raw source, attachments) stream
 * and are not read through here. Anything larger is not the service's answer, and reading it whole
 * would let whatever answered fill the caller's memory.
 */
export const MAX_JSON_ANSWER_BYTES = 8 * 1024 * 1024;

type Kind = 'string' | 'number' | 'boolean' | 'array' | 'object';
/** The required fields of one object of the document, with their JSON types. */
export type Shape = Readonly<Record<string, Kind>>;
/** What `data` must be: one object of a shape, or a page of them. */
export type AnswerShape = { one: Shape } | { page: Shape };

const email: Shape = { id: 'string', address: 'string', local_part: 'string', domain: 'string', status: 'string', created_at: 'string', expires_at: 'string' };
const listItem: Shape = { id: 'string', email_id: 'string', from: 'string', to: 'array', subject: 'string', received_at: 'string', expires_at: 'string', size_bytes: 'number', attachment_count: 'number', source_path: 'string' };

/** The document's required fields of each answer the client reads as JSON. */
export const shapes = {
  email: { one: email },
  message: { one: { ...listItem, text: 'string', html: 'string', attachments: 'array' } },
  messages: { page: listItem },
  domains: { page: { domain: 'string', create_enabled: 'boolean', receive_enabled: 'boolean' } },
  usage: { one: { plan: 'string', allowance_mode: 'string', used_requests: 'number', remaining_requests: 'number' } },
} as const satisfies Record<string, AnswerShape>;

/**
 * Reads a 2xx JSON answer, at most `MAX_JSON_ANSWER_BYTES`, and checks it is an object with `data`
 * holding the document's required fields; `UnexpectedResponseError` names what was wrong
 * otherwise (never a value of the answer: it may be mail). `what` is the request, for the message.
 */
export async function readJsonAnswer<T>(response: Response, shape: AnswerShape, what: string): Promise<T> {
  const wrong = (why: string) => new UnexpectedResponseError(response.status, `http_${response.status}`, `${what} answered ${response.status} ${why}, not the API's answer; is the base URL the service's (a proxy or portal in between)?`, response.headers.get('x-request-id') ?? undefined);
  const text = await readBounded(response, MAX_JSON_ANSWER_BYTES);
  if (text === undefined) throw wrong(`with a body larger than ${MAX_JSON_ANSWER_BYTES} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw wrong(`with a body that is not JSON (${response.headers.get('content-type') ?? 'no Content-Type'}, ${text.length} characters)`);
  }
  if (!isObject(parsed) || !('data' in parsed)) throw wrong('with JSON that is not an object with `data`');
  const missing = 'one' in shape ? missingField(parsed.data, shape.one, 'data') : missingInPage(parsed, shape.page);
  if (missing) throw wrong(`without the required field ${missing}`);
  return parsed as T;
}

/** A body as text, or undefined when it is larger than `limit` bytes (then it is not read further). */
export async function readBounded(response: Response, limit: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > limit || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    return declared > limit ? undefined : '';
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): Kind | 'null' | 'other' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'object' ? type : 'other';
}

/** The path of the first required field absent or of the wrong type, e.g. `data[3].to (an array)`. */
function missingField(value: unknown, shape: Shape, path: string): string | undefined {
  if (!isObject(value)) return `${path} (an object)`;
  for (const [field, kind] of Object.entries(shape)) if (kindOf(value[field]) !== kind) return `${path}.${field} (${kind === 'array' || kind === 'object' ? 'an' : 'a'} ${kind})`;
  return undefined;
}

function missingInPage(answer: Record<string, unknown>, item: Shape): string | undefined {
  if (!Array.isArray(answer.data)) return 'data (an array)';
  for (const [index, each] of answer.data.entries()) {
    const missing = missingField(each, item, `data[${index}]`);
    if (missing) return missing;
  }
  const pagination = answer.pagination;
  if (!isObject(pagination) || typeof pagination.has_more !== 'boolean') return 'pagination.has_more (a boolean)';
  if (pagination.has_more && typeof pagination.next_cursor !== 'string') return 'pagination.next_cursor (a string)';
  return undefined;
}
