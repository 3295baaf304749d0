import { errorBody, type ErrorBody } from '../lambdas/api/error-response';
import type { FrontRateLimitReason } from '../lambdas/core/errors';

/** The API Gateway REST response types this service rewrites (names as API Gateway spells them). */
export type GatewayResponseType =
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'REQUEST_TOO_LARGE'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'BAD_REQUEST_BODY'
  | 'BAD_REQUEST_PARAMETERS'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'INTEGRATION_FAILURE'
  | 'INTEGRATION_TIMEOUT'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

export interface GatewayResponse {
  type: GatewayResponseType;
  status: number;
  code: string;
  message: string;
  /** Fixed headers beyond the two every row has; a gateway response cannot compute a value per request. */
  headers?: Record<string, string>;
  /** A 429's limit, as its one `details[].reason`: every 429 of the service names the limit it met. */
  reason?: Extract<FrontRateLimitReason, 'gateway_throttle'>;
}

const failed = 'The service failed before completing the request.';

/**
 * The gateway's own answers (it never reaches a function for these), rewritten into the
 * contract's error shape. The one table both the deployed stack (lib/api.ts) and the local
 * front (local/gateway/gateway-error.ts) answer from, so local tests see what AWS does.
 *
 * A gateway response cannot compose `req_` with the request id in a header, so these carry the
 * request id in the body only: the one remaining deviation from the contract (docs/decisions.md).
 */
export const gatewayResponseTable: readonly GatewayResponse[] = [
  { type: 'MISSING_AUTHENTICATION_TOKEN', status: 404, code: 'resource_not_found', message: 'No such route.' },
  { type: 'RESOURCE_NOT_FOUND', status: 404, code: 'resource_not_found', message: 'No such route.' },
  {
    type: 'UNAUTHORIZED',
    status: 401,
    code: 'invalid_api_key',
    message: 'The API key is missing, malformed, revoked or not valid for this environment.',
  },
  { type: 'ACCESS_DENIED', status: 403, code: 'forbidden', message: 'This account is not entitled to this operation.' },
  { type: 'REQUEST_TOO_LARGE', status: 413, code: 'payload_too_large', message: 'The request body is too large.' },
  // The stage's per-method throttle, or the account's API Gateway quota, refused the request before any function ran.
  { type: 'THROTTLED', status: 429, code: 'rate_limit_exceeded', message: 'Too many requests; slow down.', headers: { 'Retry-After': '1' }, reason: 'gateway_throttle' },
  // A usage plan's quota: the stack declares no usage plan, so this is answered only if one is added; it is the gateway's limit as THROTTLED is.
  { type: 'QUOTA_EXCEEDED', status: 429, code: 'rate_limit_exceeded', message: 'Too many requests; slow down.', headers: { 'Retry-After': '60' }, reason: 'gateway_throttle' },
  { type: 'BAD_REQUEST_BODY', status: 400, code: 'invalid_request', message: 'The request is invalid.' },
  { type: 'BAD_REQUEST_PARAMETERS', status: 400, code: 'invalid_request', message: 'The request is invalid.' },
  { type: 'AUTHORIZER_FAILURE', status: 500, code: 'internal_error', message: failed },
  { type: 'AUTHORIZER_CONFIGURATION_ERROR', status: 500, code: 'internal_error', message: failed },
  { type: 'INTEGRATION_FAILURE', status: 500, code: 'internal_error', message: failed },
  {
    type: 'INTEGRATION_TIMEOUT',
    status: 503,
    code: 'service_unavailable',
    message: 'The service is temporarily unavailable.',
    headers: { 'Retry-After': '1' },
  },
  { type: 'DEFAULT_4XX', status: 400, code: 'invalid_request', message: 'The request is invalid.' },
  { type: 'DEFAULT_5XX', status: 500, code: 'internal_error', message: failed },
];

/** The row for a response type. */
export function gatewayResponse(type: GatewayResponseType): GatewayResponse {
  const row = gatewayResponseTable.find((candidate) => candidate.type === type);
  if (!row) throw new Error(`No gateway response for ${type}`);
  return row;
}

/** Every header of a gateway response: the same fixed values in AWS and locally. */
export function gatewayResponseHeaders(response: GatewayResponse): Record<string, string> {
  return { 'Content-Type': 'application/json', 'Cache-Control': 'private, no-store', ...response.headers };
}

/**
 * The body of a gateway response. The stack passes API Gateway's template expression
 * (`req_$context.requestId`); the local front passes the request id it made.
 */
export function gatewayResponseBody(response: GatewayResponse, requestId: string): ErrorBody {
  return errorBody(response.code, response.message, requestId, response.reason && [{ reason: response.reason }]);
}

/** The request id in a deployed gateway response's body template. */
export const gatewayRequestIdTemplate = 'req_$context.requestId';

/** A gateway response as API Gateway takes it (`AWS::ApiGateway::GatewayResponse`). */
export interface DeclaredGatewayResponse {
  /** Absent: the response type's own status. */
  statusCode?: number;
  /** Header name to mapping expression: a literal in single quotes, `context.requestId`, `method.request.header.Name`. */
  headers: Record<string, string>;
  /** Content type to body template, whose `$context.requestId` and the like are filled in per request. */
  templates: Record<string, string>;
}

/**
 * A row of the table as API Gateway declares it: header values quoted, the request id a template.
 * The stack deploys exactly this, and `npm start`'s front answers from it.
 */
export function declaredGatewayResponse(response: GatewayResponse): DeclaredGatewayResponse {
  return {
    statusCode: response.status,
    headers: Object.fromEntries(Object.entries(gatewayResponseHeaders(response)).map(([name, value]) => [name, `'${value}'`])),
    templates: { 'application/json': JSON.stringify(gatewayResponseBody(response, gatewayRequestIdTemplate)) },
  };
}
