import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import type { Writable } from 'node:stream';
import type { DeclaredGatewayResponse } from '../../lib/gateway-responses';

/**
 * The API the local gateway serves, as its declaration says: the route table for `npm start`,
 * the synthesized template for `npm run start:stack`. Both runtimes describe their API in these
 * types, so the gateway knows nothing of where its methods came from.
 */

/** The account and Region the local gateway's method ARNs and events name. */
export const gatewayAccount = { account: '000000000000', region: 'us-east-1', apiId: 'local' };

export type AuthorizerFunction = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
export type ProxyFunction = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
/** A response-streaming function, as `awslambda.streamifyResponse` hands it to the runtime. */
export type StreamingFunction = (event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => Promise<void>;

/** The function behind a route: buffered (the default) or streamed (integration transfer mode STREAM). */
export type RouteFunction = { mode: 'buffered'; fn: ProxyFunction } | { mode: 'streamed'; fn: StreamingFunction };

/** A Lambda REQUEST authorizer as declared: where its identity comes from, how long a result is reused. */
export interface RequestAuthorizer {
  /** API Gateway's mapping expressions: `method.request.header.Name`, `method.request.querystring.name`, `context.requestId`, `stageVariables.name`. */
  identitySources: readonly string[];
  /** A result is reused for the same identity-source values this long; 0: the authorizer runs on every request. */
  resultTtlSeconds: number;
  invoke: AuthorizerFunction;
}

/** A Cognito user pool authorizer as declared, with the check of its pool's tokens. */
export interface CognitoAuthorizer {
  /** The header mapping expression the token is read from (`method.request.header.Authorization`). */
  identitySource: string;
  resultTtlSeconds: number;
  /** The token's claims when the user pool's authorizer accepts it, undefined when it refuses it. */
  verify(token: string): Promise<Record<string, string> | undefined>;
}

export type MethodAuthorization =
  | { type: 'NONE' }
  | { type: 'CUSTOM'; authorizer: RequestAuthorizer }
  | { type: 'COGNITO_USER_POOLS'; authorizer: CognitoAuthorizer };

/** One method of the API: where it is, who may call it, how often, and the function behind it. */
export interface GatewayMethod {
  /** Names the method in its events (`requestContext.resourceId`). */
  id: string;
  /** The HTTP method, or `ANY`. */
  method: string;
  /** The resource path, with `{param}` placeholders. */
  path: string;
  authorization: MethodAuthorization;
  /** The stage's throttle for this method: a bucket of `burst` requests refilled at `rate` a second. Absent: not throttled. */
  throttle?: { rate: number; burst: number };
  /** Absent: the gateway answers INTEGRATION_FAILURE, as for a function it cannot invoke. */
  target?: RouteFunction;
  /** How long the gateway waits for a buffered integration's answer (the integration's `TimeoutInMillis`); absent: 29 s. */
  integrationTimeoutMs?: number;
}

/** The API the gateway serves, as its declaration says (the route table for `npm start`, the template for `npm run start:stack`). */
export interface GatewayApi {
  stage: string;
  methods: readonly GatewayMethod[];
  /** The declared gateway responses by type; a type not declared falls back to DEFAULT_4XX or DEFAULT_5XX, then to API Gateway's own. */
  responses: ReadonlyMap<string, DeclaredGatewayResponse>;
  /** Media types handed over base64-encoded, as API Gateway spells them (every type, a type family, or one type). */
  binaryMediaTypes: readonly string[];
}
