import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { newGatewayRequestId, requestIdFor } from '../../lambdas/core/ids';
import { errorBody } from '../../lambdas/api/error-response';

/**
 * Requests Node's HTTP parser refuses before any handler runs (oversized headers, a malformed
 * request line, a request that never finished arriving): answered in the contract's error shape
 * with `X-Request-Id` and `Cache-Control`, instead of Node's bare status line.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const answer = clientErrorResponse(error.code, requestIdFor(newGatewayRequestId()));
  const head = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}`, ...Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}`)];
  socket.end(`${head.join('\r\n')}\r\n\r\n${answer.body}`);
}

/**
 * The front's answer to a parser error, as openapi/openapi.yaml describes it (the local front's
 * own errors): 431 for oversized headers, 408 for a request that never finished arriving, 413 for
 * an oversized chunk extension, else 400 `invalid_request` with a detail on field `request`.
 */
export function clientErrorResponse(parserCode: string | undefined, requestId: string): { status: number; headers: Record<string, string>; body: string } {
  const [status, code, message] = clientErrorAnswer(parserCode);
  const details = status === 400 ? [{ field: 'request', reason: 'must be a valid HTTP/1.1 request' }] : undefined;
  const body = JSON.stringify(errorBody(code, message, requestId, details));
  return {
    status,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'private, no-store',
      'X-Request-Id': requestId,
      'Content-Length': String(Buffer.byteLength(body)),
      Connection: 'close',
    },
    body,
  };
}

function clientErrorAnswer(parserCode: string | undefined): [number, string, string] {
  switch (parserCode) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'request_header_fields_too_large', 'The request headers are too large.'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'request_timeout', 'The request did not arrive in time.'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'payload_too_large', 'The request body is too large.'];
    default:
      return [400, 'invalid_request', 'The request is not valid HTTP.'];
  }
}
