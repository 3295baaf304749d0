import type { Readable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Plan } from '../core/plans';
import type { ApiServices, ConsoleServices } from '../composition/services';
import type { SignedInIdentity } from '../core/identities';
import type { Account } from '../core/ports/account-store';

/** The API Gateway REST proxy event and result every route speaks. */
export type ApiEvent = APIGatewayProxyEvent;
/** A buffered proxy response, or a streamed one (file bodies: API Gateway response streaming). */
export type ApiResponse = APIGatewayProxyResult | StreamedResponse;

export interface StreamedResponse {
  statusCode: number;
  headers?: APIGatewayProxyResult['headers'];
  body: Readable;
}

/** A request as a route sees it: authenticated, normalized, with the contract's request id. */
export interface ApiRequest {
  requestId: string;
  account: { accountId: string; keyId: string; plan: Plan };
  pathParameters: Readonly<Record<string, string>>;
  /** Single-valued query parameters; a repeated parameter is rejected before the route runs. */
  query: Readonly<Record<string, string>>;
  /** Header names in lower case; the last value of a repeated header. */
  headers: Readonly<Record<string, string>>;
  /** Every value of each header, names in lower case: a header with one meaning reads it (`singleHeader`). */
  headerValues: Readonly<Record<string, readonly string[]>>;
  /** The body, decoded when the gateway delivered it base64-encoded. */
  body: string | undefined;
}

/** What a route answers: a status, a JSON body or a file, and any headers of its own. */
export interface ApiResult {
  status: number;
  body?: unknown;
  /** A file body: always a download, never rendered by the client's browser. */
  file?: FileBody;
  headers?: Record<string, string>;
}

export interface FileBody {
  stream: Readable;
  size: number;
  /** The blob's strong entity tag. */
  etag: string;
  contentType: string;
  /** The name offered for saving, as the sender gave it: it is made safe for the header. */
  filename: string;
}

/** A route's business: parse, call one core function, shape the result. */
export type RouteHandler<S extends ApiServices = ApiServices> = (request: ApiRequest, services: S) => Promise<ApiResult>;

/** A console request: the signed-in identity and its account instead of an API key. */
export interface ConsoleRequest extends Omit<ApiRequest, 'account'> {
  identity: SignedInIdentity;
  account: Account;
}

/** A console route's business, like a `/v1` route's. */
export type ConsoleRouteHandler<S extends ConsoleServices = ConsoleServices> = (
  request: ConsoleRequest,
  services: S,
) => Promise<ApiResult>;
