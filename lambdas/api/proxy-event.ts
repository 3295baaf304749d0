import { InvalidRequest } from '../core/errors';
import { requestIdFor } from '../core/ids';
import type { ApiEvent, ApiRequest, ApiResponse, ApiResult } from './api-types';
import type { AccountDecision } from './authorizer-context';
import { fileHeaders } from './file-headers';

/** The contract's request id of a proxy event: `req_` + the gateway's request id. */
export function requestIdOf(event: Pick<ApiEvent, 'requestContext'>): string {
  return requestIdFor(event.requestContext?.requestId ?? 'unknown-request');
}

/** Reads a proxy event into the request a route sees. A repeated query parameter is a 400. */
export function toApiRequest(event: ApiEvent, decision: AccountDecision): ApiRequest {
  return { ...requestParts(event), account: { accountId: decision.accountId, keyId: decision.keyId, plan: decision.plan } };
}

/** The parts of a request every route reads, whoever the caller is. */
export function requestParts(event: ApiEvent): Omit<ApiRequest, 'account'> {
  const query: Record<string, string> = {};
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if ((values?.length ?? 0) > 1) {
      throw new InvalidRequest(`Query parameter ${name} is given more than once.`, [
        { field: name, reason: 'must be given at most once' },
      ]);
    }
    query[name] = values?.[0] ?? '';
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  const headerValues = allHeaderValues(event);
  const body =
    event.body === null || event.body === undefined
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  return {
    requestId: requestIdOf(event),
    pathParameters: { ...(event.pathParameters ?? {}) } as Record<string, string>,
    query,
    headers,
    headerValues,
    body,
  };
}

/** The headers that may appear with one value or several, as both shapes of a gateway event hold them. */
export interface HeaderShapes {
  headers?: Record<string, string | undefined> | null;
  multiValueHeaders?: Record<string, string[] | undefined> | null;
}

/**
 * Every value of every header, names in lower case. API Gateway's `headers` keeps only the last
 * value of a repeated header; `multiValueHeaders` keeps them all, so it is the one read, and
 * names that differ only in case are one header. An event without it (a hand-built one) falls
 * back to `headers`.
 */
export function allHeaderValues(event: HeaderShapes): Record<string, string[]> {
  const values: Record<string, string[]> = {};
  const multi = event.multiValueHeaders ?? {};
  for (const [name, list] of Object.entries(multi)) (values[name.toLowerCase()] ??= []).push(...(list ?? []));
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined && !(name.toLowerCase() in values)) values[name.toLowerCase()] = [value];
  }
  return values;
}

/**
 * The one value of a header that has a single meaning, or undefined when absent. Given more than
 * once it is a 400 on that header, as a repeated query parameter is.
 */
export function singleHeader(request: Pick<ApiRequest, 'headerValues'>, name: string): string | undefined {
  const values = request.headerValues[name.toLowerCase()] ?? [];
  if (values.length > 1) {
    throw new InvalidRequest(`The ${name} header is given more than once.`, [{ field: name, reason: 'must be given at most once' }]);
  }
  return values[0];
}

/** Writes a route's result as the proxy integration's response. */
export function toProxyResponse(result: ApiResult): ApiResponse {
  if (result.file) {
    return { statusCode: result.status, headers: { ...fileHeaders(result.file), ...result.headers }, body: result.file.stream };
  }
  const hasBody = result.body !== undefined;
  return {
    statusCode: result.status,
    headers: { ...(hasBody ? { 'Content-Type': 'application/json' } : {}), ...result.headers },
    body: hasBody ? JSON.stringify(result.body) : '',
  };
}
