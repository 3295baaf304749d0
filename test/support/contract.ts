import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gatewayResponseTable } from '../../lib/gateway-responses';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

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

/** The document, parsed once per test file, with a compiled validator per schema location. */
export function contract(): Contract {
  if (loaded) return loaded;
  const document = parse(readFileSync(openApiPath, 'utf8'));
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
    // The documented deviation: the gateway's own answers carry the request id in the body only.
    checkHeader('Cache-Control', { $ref: '#/components/headers/Cache-Control' }, '/components/headers/Cache-Control');
    const envelope = JSON.parse(body!) as Json;
    const validate = schema('/components/schemas/Error');
    if (Object.keys(envelope).length !== 1 || !validate(envelope.error)) problems.push(`body is not the error shape ${describe(validate)}`);
    return problems.map((problem) => `${method} ${path} (gateway-made ${gatewayMade}) ${status}: ${problem}`);
  }

  if (!operation) {
    // No route: the gateway's 404 in the error shape, before authentication (no RateLimit-*).
    if (status !== 404) problems.push(`${method} ${path} matches no operation, yet answered ${status} instead of 404`);
    checkHeader('X-Request-Id', { $ref: '#/components/headers/X-Request-Id' }, '/components/headers/X-Request-Id');
    checkHeader('Cache-Control', { $ref: '#/components/headers/Cache-Control' }, '/components/headers/Cache-Control');
    checkJson('/components/schemas/NotFoundError');
    return problems.map((problem) => `${method} ${path} (no operation) ${status}: ${problem}`);
  }

  // Which operations and statuses the suites met, when asked (a run's coverage of the document).
  if (process.env.CONTRACT_COVERAGE_FILE) appendFileSync(process.env.CONTRACT_COVERAGE_FILE, `${method} ${operation.template} ${status}\n`);
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
 * The gateway response type of an answer the gateway made itself (lib/gateway-responses.ts), or
 * undefined: no `X-Request-Id` header, a row's status, code and message, and the request id in the
 * body that the gateway's own `x-amzn-RequestId` header names.
 */
function gatewayMadeError(status: number, headers: Headers, body: string | undefined): string | undefined {
  if (headers.has('x-request-id') || body === undefined) return undefined;
  let error: Json;
  try {
    error = (JSON.parse(body) as Json)?.error;
  } catch {
    return undefined;
  }
  if (!error || error.request_id !== `req_${headers.get('x-amzn-requestid')}`) return undefined;
  return gatewayResponseTable.find((row) => row.status === status && row.code === error.code && row.message === error.message)?.type;
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
 * Only the service's own API (`/v1`) is checked; a JSON body is read from a clone, a file body is
 * never read (its headers and media type are checked), so the caller's response is untouched.
 */
export async function assertConformsToContract(method: string, url: URL, response: Response, requestBody?: string): Promise<void> {
  if (url.pathname !== '/v1' && !url.pathname.startsWith('/v1/')) return;
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const readable = response.body !== null && (mediaType === 'application/json' || mediaType === '');
  const body = readable ? await response.clone().text() : undefined;
  const problems = contractProblems(method.toUpperCase(), url, response.status, response.headers, body, requestBody);
  if (problems.length > 0) throw new ContractDrift(problems);
}

/** `fetch`, with every answer of the API checked against the document before the caller sees it. */
export async function contractFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  await assertConformsToContract(init?.method ?? 'GET', new URL(String(input)), response, typeof init?.body === 'string' ? init.body : undefined);
  return response;
}
