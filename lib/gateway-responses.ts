import { ResponseType, type GatewayResponseOptions } from 'aws-cdk-lib/aws-apigateway';

/** A gateway response in the contract's error shape, with its request id in the body. */
function errorResponse(
  type: ResponseType,
  statusCode: number,
  code: string,
  message: string,
  extraHeaders: Record<string, string> = {},
): GatewayResponseOptions {
  return {
    type,
    statusCode: String(statusCode),
    responseHeaders: {
      'Content-Type': "'application/json'",
      'Cache-Control': "'private, no-store'",
      ...extraHeaders,
    },
    templates: {
      'application/json': JSON.stringify({ error: { code, message, request_id: 'req_$context.requestId' } }),
    },
  };
}

/**
 * The gateway's own answers (it never reaches a function for these), rewritten into the contract's
 * error shape. A gateway response cannot compose `req_` with the request id in a header, so these
 * carry the request id in the body only; every answer of the service's functions has both.
 */
export const gatewayResponses: GatewayResponseOptions[] = [
  errorResponse(ResponseType.MISSING_AUTHENTICATION_TOKEN, 404, 'resource_not_found', 'No such route.'),
  errorResponse(ResponseType.RESOURCE_NOT_FOUND, 404, 'resource_not_found', 'No such route.'),
  errorResponse(ResponseType.UNAUTHORIZED, 401, 'invalid_api_key', 'The API key is missing, malformed, revoked or not valid for this environment.'),
  errorResponse(ResponseType.ACCESS_DENIED, 403, 'forbidden', 'This account is not entitled to this operation.'),
  errorResponse(ResponseType.REQUEST_TOO_LARGE, 413, 'payload_too_large', 'The request body is too large.'),
  errorResponse(ResponseType.THROTTLED, 429, 'rate_limit_exceeded', 'Too many requests; slow down.', { 'Retry-After': "'1'" }),
  errorResponse(ResponseType.QUOTA_EXCEEDED, 429, 'rate_limit_exceeded', 'Too many requests; slow down.', { 'Retry-After': "'60'" }),
  errorResponse(ResponseType.BAD_REQUEST_BODY, 400, 'invalid_request', 'The request is invalid.'),
  errorResponse(ResponseType.BAD_REQUEST_PARAMETERS, 400, 'invalid_request', 'The request is invalid.'),
  errorResponse(ResponseType.AUTHORIZER_FAILURE, 500, 'internal_error', 'The service failed before completing the request.'),
  errorResponse(ResponseType.AUTHORIZER_CONFIGURATION_ERROR, 500, 'internal_error', 'The service failed before completing the request.'),
  errorResponse(ResponseType.INTEGRATION_FAILURE, 500, 'internal_error', 'The service failed before completing the request.'),
  errorResponse(ResponseType.INTEGRATION_TIMEOUT, 503, 'service_unavailable', 'The service is temporarily unavailable.', { 'Retry-After': "'1'" }),
  errorResponse(ResponseType.DEFAULT_4XX, 400, 'invalid_request', 'The request is invalid.'),
  errorResponse(ResponseType.DEFAULT_5XX, 500, 'internal_error', 'The service failed before completing the request.'),
];
