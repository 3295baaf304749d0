import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { gatewayResponseBody, gatewayResponseHeaders, gatewayResponseTable, type GatewayResponse } from '../../lib/gateway-responses';
import { recordExercised } from './contract-coverage';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Every response the integration suites receive is checked against `openapi/openapi.yaml`:
 * the status must be one the operation documents, every documented header required there must be
 * present and match its schema, no header beyond the documented ones and HTTP's own may appear,
 * the media type must be a documented one, and a JSON body must match its schema (which forbids
 * properties beyond those listed). Any drift between the code and the document fails the test
 * that received the response.
 */

export const openApiPath = join(__dirname, '..', '..', 'openapi', 'openapi.yaml');

/**
 * Headers of HTTP itself (and of Node's server), which the document does not list per operation,
 * and API Gateway's own `x-amzn-RequestId`, which the deployed gateway adds to every response and
 * the local front adds as it does.
 */
const transportHeaders = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'x-amzn-requestid']);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Record<string, Json>;
  /** Whether the operation takes a JSON body (its schema sits under requestBody). */
  jsonBody: boolean;
}

interface Contract {
  document: Json;
  operations: Operation[];
  schema(pointer: string): ValidateFunction;
}

let loaded: Contract | undefined;

/**
 * The document as its YAML parses, kept as JSON in the system's temporary directory under the hash
 * of its text: parsing the YAML cost about 0.3 s of processor time in every suite that checks a
 * response, and the parse changes only with the text. A document whose parse JSON cannot carry
 * whole is parsed every time; a kept copy that does not read is parsed and written again.
 */
function parsedDocument(): Json {
  const text = readFileSync(openApiPath, 'utf8');
  const kept = join(tmpdir(), `tempmail-openapi-${createHash('sha256').update(text).digest('hex').slice(0, 32)}.json`);
  try {
    return JSON.parse(readFileSync(kept, 'utf8'));
  } catch {
    // Not kept yet, or cut short: parsed below.
  }
  // Required here: a suite that finds the kept copy never loads the YAML parser.
  const { parse } = require('yaml') as typeof import('yaml');
  const document = parse(text);
  const json = JSON.stringify(document);
  if (!isDeepStrictEqual(JSON.parse(json), document)) return document;
  // Written whole under another name, then renamed: a suite reading meanwhile never sees half of it.
  const partial = `${kept}.${randomUUID()}`;
  writeFileSync(partial, json);
  renameSync(partial, kept);
  return document;
}

/** The document, parsed once per test file, with a compiled validator per schema location. */
export function contract(): Contract {
  if (loaded) return loaded;
  const document = parsedDocument();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: 'openapi' });
  const compiled = new Map<string, ValidateFunction>();
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      if (item[method]) {
        const jsonBody = Boolean(item[method].requestBody?.content?.['application/json']);
        operations.push({ method: method.toUpperCase(), template, pattern, responses: item[method].responses, jsonBody });
      }
    }
  }
  loaded = {
    document,
    operations,
    schema(pointer) {
      let validate = compiled.get(pointer);
      if (!validate) {
        validate = ajv.compile({ $ref: `openapi#${pointer}` });
        compiled.set(pointer, validate);
      }
      return validate;
    },
  };
  return loaded;
}

/** Follows a local `$ref` (responses, headers) to the object it names, with its JSON pointer. */
function resolve(document: Json, value: Json, pointer: string): { value: Json; pointer: string } {
  let current = { value, pointer };
  while (current.value && typeof current.value.$ref === 'string') {
    const ref: string = current.value.$ref;
    const target = ref
      .slice(2)
      .split('/')
      .reduce((node: Json, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    current = { value: target, pointer: ref.slice(1) };
  }
  return current;
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** A header's text as the value its schema describes: integers and booleans are parsed. */
function headerValue(text: string, schema: Json): unknown {
  if (schema?.type === 'integer') return /^-?\d+$/.test(text) ? Number(text) : text;
  if (schema?.type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}

function describe(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`).join('; ');
}

/**
 * The problems of one exchange against the document; empty when it conforms. With the request's
 * JSON body, the document's request schema must agree with the service: a body the service took
 * (2xx, 409, 422) must validate, and one it refused as 400 naming a body field must not.
 */
export function contractProblems(method: string, url: URL, status: number, headers: Headers, body: string | undefined, requestBody?: string): string[] {
  const { document, operations, schema } = contract();
  const path = url.pathname;
  const problems: string[] = [];
  const operation = operations.find((candidate) => candidate.method === method && candidate.pattern.test(path));

  const gatewayMade = gatewayMadeError(status, headers, body);
  if (gatewayMade !== undefined) {
    // The documented deviation: the gateway's own answers carry the request id in the body only,
    // and exactly the headers of their row of the gateway table.
    const where = `${method} ${path} (gateway-made ${gatewayMade.type}) ${status}`;
    return gatewayRowProblems(gatewayMade, operation, headers).map((problem) => `${where}: ${problem}`);
  }

  if (!operation) {
    // No route: the gateway's 404 in the error shape, before authentication (no RateLimit-*).
    if (status !== 404) problems.push(`${method} ${path} matches no operation, yet answered ${status} instead of 404`);
    checkHeader('X-Request-Id', { $ref: '#/components/headers/X-Request-Id' }, '/components/headers/X-Request-Id');
    checkHeader('Cache-Control', { $ref: '#/components/headers/Cache-Control' }, '/components/headers/Cache-Control');
    checkJson('/components/schemas/NotFoundError');
    return problems.map((problem) => `${method} ${path} (no operation) ${status}: ${problem}`);
  }

  // Which documented operations and statuses the suites met (test/support/contract-coverage.ts).
  if (operation.responses[String(status)]) recordExercised(method, operation.template, status);
  const base = `/paths/${escape(operation.template)}/${method.toLowerCase()}/responses`;
  if (operation.jsonBody && requestBody !== undefined) checkRequestBody(`/paths/${escape(operation.template)}/${method.toLowerCase()}/requestBody/content/application~1json/schema`);
  const documented = operation.responses[String(status)];
  if (!documented) {
    return [`${method} ${operation.template}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`];
  }
  const response = resolve(document, documented, `${base}/${status}`);

  const listed = new Set<string>(transportHeaders);
  for (const [name, declared] of Object.entries<Json>(response.value.headers ?? {})) {
    listed.add(name.toLowerCase());
    checkHeader(name, declared, `${response.pointer}/headers/${escape(name)}`);
  }
  for (const [name] of headers) {
    if (!listed.has(name.toLowerCase())) problems.push(`header ${name} is not documented for this response`);
  }

  const content = response.value.content as Record<string, Json> | undefined;
  const mediaType = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!content) {
    if (body !== undefined && body !== '') problems.push('has a body, but the document gives this response none');
  } else if (!(mediaType in content)) {
    problems.push(`Content-Type ${mediaType || '(none)'} is not one of ${Object.keys(content).join(', ')}`);
  } else if (mediaType === 'application/json') {
    checkJson(`${response.pointer}/content/${escape(mediaType)}/schema`);
  }
  if (status >= 400 && body !== undefined && mediaType === 'application/json') {
    try {
      const requestId = (JSON.parse(body) as Json)?.error?.request_id;
      if (requestId !== headers.get('x-request-id')) problems.push(`error.request_id ${requestId} differs from X-Request-Id`);
    } catch {
      // reported by checkJson
    }
  }
  return problems.map((problem) => `${method} ${operation.template} ${status}: ${problem}`);

  function checkHeader(name: string, declared: Json, pointer: string) {
    const header = resolve(document, declared, pointer);
    const text = headers.get(name);
    if (text === null) {
      if (header.value.required) problems.push(`header ${name} is missing`);
      return;
    }
    const validate = schema(`${header.pointer}/schema`);
    if (!validate(headerValue(text, header.value.schema))) problems.push(`header ${name}: ${JSON.stringify(text)} ${describe(validate)}`);
  }

  function checkRequestBody(pointer: string) {
    let sent: Json;
    try {
      sent = JSON.parse(requestBody!);
    } catch {
      return; // not JSON: the service's 400 is the document's too
    }
    const validate = schema(pointer);
    const documentTakes = validate(sent);
    const serviceTook = (status >= 200 && status < 300) || status === 409 || status === 422;
    if (serviceTook && !documentTakes) problems.push(`the service took a request body the document refuses: ${describe(validate)}`);
    if (status === 400 && documentTakes && sent && typeof sent === 'object') {
      let fields: string[] = [];
      try {
        fields = ((JSON.parse(body ?? '') as Json)?.error?.details ?? []).map((detail: Json) => detail.field);
      } catch {
        // reported by the body check
      }
      const refused = fields.filter((field) => Object.hasOwn(sent, field));
      if (refused.length > 0) problems.push(`the service refused body field ${refused.join(', ')} that the document accepts`);
    }
  }

  function checkJson(pointer: string) {
    let value: unknown;
    try {
      value = JSON.parse(body ?? '');
    } catch {
      problems.push('body is not JSON');
      return;
    }
    const validate = schema(pointer);
    if (!validate(value)) problems.push(`body ${describe(validate)}`);
  }
}

/**
 * The row of the gateway table (lib/gateway-responses.ts) of an answer the gateway made itself,
 * or undefined: no `X-Request-Id` header, a row's status, and exactly the row's body (code,
 * message, a 429's reason) with the request id the gateway's own `x-amzn-RequestId` header names.
 */
function gatewayMadeError(status: number, headers: Headers, body: string | undefined): GatewayResponse | undefined {
  if (headers.has('x-request-id') || body === undefined) return undefined;
  let envelope: Json;
  try {
    envelope = JSON.parse(body) as Json;
  } catch {
    return undefined;
  }
  const requestId = `req_${headers.get('x-amzn-requestid')}`;
  return gatewayResponseTable.find((row) => row.status === status && isDeepStrictEqual(envelope, gatewayResponseBody(row, requestId)));
}

/** The gateway's 404 rows: its answers to a method and path no route has. */
const noRouteRows = new Set(['MISSING_AUTHENTICATION_TOKEN', 'RESOURCE_NOT_FOUND']);

/**
 * A gateway-made answer against its own row: it may stand only where the gateway makes it (the
 * no-route 404 where no operation matches; any other row on an operation that documents its
 * status), with the row's headers, value for value, and no header beyond them and HTTP's own.
 */
function gatewayRowProblems(row: GatewayResponse, operation: Operation | undefined, headers: Headers): string[] {
  const problems: string[] = [];
  if (noRouteRows.has(row.type) && operation) problems.push(`the gateway's no-route answer on a route of ${operation.method} ${operation.template}`);
  if (!noRouteRows.has(row.type) && !operation) problems.push('the gateway answers a method and path no route has only with its no-route 404');
  if (!noRouteRows.has(row.type) && operation && !operation.responses[String(row.status)]) {
    problems.push(`${operation.method} ${operation.template} does not document status ${row.status}`);
  }
  const expected = new Map(Object.entries(gatewayResponseHeaders(row)).map(([name, value]) => [name.toLowerCase(), value]));
  for (const [name, value] of expected) {
    const actual = headers.get(name);
    if (actual !== value) problems.push(actual === null ? `header ${name} is missing` : `header ${name}: ${JSON.stringify(actual)} is not the row's ${JSON.stringify(value)}`);
  }
  for (const [name] of headers) {
    if (!expected.has(name) && !transportHeaders.has(name)) problems.push(`header ${name} is not one the gateway's row gives`);
  }
  return problems;
}

/** Raised when a response drifts from the document. */
export class ContractDrift extends Error {
  constructor(readonly problems: string[]) {
    super(`response drifts from openapi/openapi.yaml:\n  ${problems.join('\n  ')}`);
    this.name = 'ContractDrift';
  }
}

/**
 * Checks a received response against the document and throws `ContractDrift` on any difference.
 * Only the service's own API (`/v1`) is checked. A JSON body is read from a clone; a file body is
 * counted as the caller reads it, and the read fails with `ContractDrift` when it ends at another
 * length than its `Content-Length`. Returns the response the caller is to read.
 */
export async function assertConformsToContract(method: string, url: URL, response: Response, requestBody?: string): Promise<Response> {
  if (url.pathname !== '/v1' && !url.pathname.startsWith('/v1/')) return response;
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const readable = response.body !== null && (mediaType === 'application/json' || mediaType === '');
  const body = readable ? await response.clone().text() : undefined;
  const problems = contractProblems(method.toUpperCase(), url, response.status, response.headers, body, requestBody);
  const declared = response.headers.get('content-length');
  if (body !== undefined && declared !== null && Buffer.byteLength(body) !== Number(declared)) {
    problems.push(`${method} ${url.pathname} ${response.status}: the body is ${Buffer.byteLength(body)} bytes, but Content-Length says ${declared}`);
  }
  if (problems.length > 0) throw new ContractDrift(problems);
  if (readable || response.body === null) return response;
  return withLengthCheck(`${method} ${url.pathname} ${response.status}`, response, declared);
}

/** The same response, whose body fails with `ContractDrift` when it ends at another length than `Content-Length`. */
function withLengthCheck(where: string, response: Response, declared: string | null): Response {
  let received = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      received += chunk.byteLength;
      controller.enqueue(chunk);
    },
    flush(controller) {
      if (declared === null) controller.error(new ContractDrift([`${where}: a file body without Content-Length`]));
      else if (received !== Number(declared)) controller.error(new ContractDrift([`${where}: the file body is ${received} bytes, but Content-Length says ${declared}`]));
    },
  });
  return new Response(response.body!.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** `fetch`, with every answer of the API checked against the document before the caller sees it. */
export async function contractFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  const response = await globalThis.fetch(input, init);
  return assertConformsToContract(init?.method ?? 'GET', new URL(String(input)), response, typeof init?.body === 'string' ? init.body : undefined);
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/**
 * One request through `node:http`, for what `fetch` cannot send (a header given twice, a request
 * target exactly as written): the answer is read whole and checked against the document as
 * `contractFetch` checks its answers, Content-Length included.
 */
export function contractRequest(
  origin: string,
  target: string,
  options: { method?: string; headers?: Record<string, string> | string[]; body?: string } = {},
): Promise<RawAnswer> {
  const method = options.method ?? 'GET';
  const base = new URL(origin);
  // The front reads the target as a URL against its own origin, as this does (a target such as
  // `//` is no relative URL: then its path is the target itself).
  const url = URL.canParse(target, base.href) ? new URL(target, base) : new URL(`${base.origin}${target.startsWith('/') ? '' : '/'}${target}`);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: base.hostname, port: base.port, method, path: target, headers: options.headers ?? {} }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const headers = headersOf(response.rawHeaders);
        const body = Buffer.concat(chunks);
        try {
          checkRaw(method, url, response.statusCode ?? 0, headers, body, options.body);
          resolve({ status: response.statusCode ?? 0, headers, body });
        } catch (error) {
          reject(error);
        }
      });
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

/**
 * A download through `node:http` that the caller may abandon part-way: the head is checked
 * against the document before the caller sees the stream (the body cannot be, it is not read whole).
 */
export async function contractDownload(url: URL, headers: Record<string, string>): Promise<{ request: ClientRequest; response: IncomingMessage }> {
  const request = httpRequest(url, { headers });
  request.on('error', () => undefined);
  request.end();
  const [response] = (await once(request, 'response')) as [IncomingMessage];
  const problems = contractProblems('GET', url, response.statusCode ?? 0, headersOf(response.rawHeaders), undefined);
  if (problems.length > 0) {
    request.destroy();
    throw new ContractDrift(problems);
  }
  return { request, response };
}

function headersOf(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

function checkRaw(method: string, url: URL, status: number, headers: Headers, body: Buffer, requestBody: string | undefined): void {
  if (url.pathname !== '/v1' && !url.pathname.startsWith('/v1/')) return;
  const mediaType = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const text = mediaType === 'application/json' || mediaType === '' ? body.toString('utf8') : undefined;
  const problems = contractProblems(method.toUpperCase(), url, status, headers, text, requestBody);
  const declared = headers.get('content-length');
  if (declared !== null && body.length !== Number(declared)) problems.push(`${method} ${url.pathname} ${status}: the body is ${body.length} bytes, but Content-Length says ${declared}`);
  if (problems.length > 0) throw new ContractDrift(problems);
}

/** Every (operation, status) pair the document lists, as `METHOD /template status`. */
export function documentedPairs(): string[] {
  return contract().operations.flatMap(({ method, template, responses }) => Object.keys(responses).map((status) => `${method} ${template} ${status}`));
}
