import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayResponseType } from '../../lib/gateway-responses';
import type { GatewayApi } from './gateway-api';

/**
 * API Gateway's own status and message of each response type the gateway gives, for an API that
 * declares neither the type nor its DEFAULT_4XX/DEFAULT_5XX.
 */
const builtInResponses: Partial<Record<GatewayResponseType, [number, string]>> = {
  MISSING_AUTHENTICATION_TOKEN: [403, 'Missing Authentication Token'],
  UNAUTHORIZED: [401, 'Unauthorized'],
  ACCESS_DENIED: [403, 'User is not authorized to access this resource'],
  THROTTLED: [429, 'Too Many Requests'],
  REQUEST_TOO_LARGE: [413, 'Request Too Long'],
  AUTHORIZER_FAILURE: [500, 'Internal server error'],
  INTEGRATION_FAILURE: [504, 'Internal server error'],
  DEFAULT_5XX: [500, 'Internal server error'],
};

/**
 * A response the gateway itself gives, as the API declares it: the type's gateway response (else
 * the DEFAULT_4XX or DEFAULT_5XX one, else API Gateway's own), its header mapping expressions
 * and its body template filled in for this request. As in AWS, no `X-Request-Id` header unless declared.
 */
export function gatewayError(
  req: IncomingMessage,
  res: ServerResponse,
  api: GatewayApi,
  gatewayRequestId: string,
  type: GatewayResponseType,
  builtIn: [number, string] = builtInResponses[type] ?? [500, 'Internal server error'],
) {
  const [builtInStatus, message] = builtIn;
  const declared = api.responses.get(type) ?? api.responses.get(builtInStatus >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX');
  const status = api.responses.get(type)?.statusCode ?? builtInStatus;
  const template = declared && (declared.templates['application/json'] ?? Object.values(declared.templates)[0]);
  const variables: Record<string, string> = {
    requestId: gatewayRequestId,
    'error.responseType': type,
    'error.message': message,
    'error.messageString': JSON.stringify(message),
  };
  const body =
    template === undefined
      ? JSON.stringify({ message })
      : template.replace(/\$(?:\{context\.([\w.]+)\}|context\.([A-Za-z]\w*(?:\.[A-Za-z]\w*)*))/g, (_, braced?: string, bare?: string) => variables[braced ?? bare ?? ''] ?? '');
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  for (const [name, expression] of Object.entries(declared?.headers ?? {})) {
    const value = mappingValue(expression, gatewayRequestId, req.headers);
    if (value !== undefined) headers[name] = value;
  }
  res.writeHead(status, headers);
  res.end(body);
}

/** A gateway response header's mapping expression, evaluated: a quoted literal, the request id, or a request header. */
function mappingValue(expression: string, requestId: string, requestHeaders: IncomingHttpHeaders): string | undefined {
  const literal = /^'(.*)'$/s.exec(expression);
  if (literal) return literal[1];
  if (expression === 'context.requestId') return requestId;
  const header = /^method\.request\.header\.(.+)$/.exec(expression)?.[1];
  const value = header === undefined ? undefined : requestHeaders[header.toLowerCase()];
  return Array.isArray(value) ? value.join(',') : value;
}
