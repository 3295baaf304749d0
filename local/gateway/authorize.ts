import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { GatewayResponseType } from '../../lib/gateway-responses';
import { policyAllows, type PolicyDocument } from '../iam';
import { gatewayAccount, type MethodAuthorization } from './gateway-api';
import type { GatewayState } from './gateway-state';

/** What an authorizer is shown of the request: the proxy event's parts, before the method's function is known to run. */
export type AuthorizerEvent = Omit<APIGatewayRequestAuthorizerEvent, 'type' | 'methodArn' | 'requestContext'> & { requestContext: APIGatewayProxyEvent['requestContext'] };
/** A refusal answered with a gateway response, or the authorizer context the integration's event carries. */
export type Authorization = { refused: GatewayResponseType } | { context: APIGatewayProxyEvent['requestContext']['authorizer'] };

/**
 * A method's authorization, as API Gateway runs it: every identity source present (else 401 and
 * no authorizer call), the result reused within the authorizer's TTL for the same identity, and
 * a Lambda authorizer's policy evaluated against this request's method ARN (a reused policy may
 * not cover it: 403).
 */
export async function authorize(authorization: MethodAuthorization, event: AuthorizerEvent, stage: string, gateway: GatewayState): Promise<Authorization> {
  if (authorization.type === 'NONE') return { context: undefined };
  const { authorizer } = authorization;
  const sources = authorization.type === 'CUSTOM' ? authorization.authorizer.identitySources : [authorization.authorizer.identitySource];
  const identity = sources.map((source) => identityValue(source, event));
  if (!identity.every((value): value is string => value !== undefined)) return { refused: 'UNAUTHORIZED' };
  try {
    if (authorization.type === 'COGNITO_USER_POOLS') {
      const token = identity[0]!.replace(/^Bearer\s+/i, '');
      const claims = await gateway.cached(authorizer, identity, () => authorization.authorizer.verify(token));
      return claims ? { context: { claims } } : { refused: 'UNAUTHORIZED' };
    }
    const methodArn = `arn:aws:execute-api:${gatewayAccount.region}:${gatewayAccount.account}:${gatewayAccount.apiId}/${stage}/${event.httpMethod}${event.path}`;
    const result = await gateway.cached(authorizer, identity, () => authorization.authorizer.invoke({ type: 'REQUEST', methodArn, ...event } as unknown as APIGatewayRequestAuthorizerEvent));
    if (!(await allows(result.policyDocument, methodArn))) return { refused: 'ACCESS_DENIED' };
    return { context: authorizerContext(result) };
  } catch (error) {
    // A Lambda authorizer that fails with exactly `Unauthorized` asks for the gateway's 401.
    return { refused: (error as Error).message === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE' };
  }
}

/** Whether an authorizer's policy allows the method; a policy that allows exactly it needs no evaluator. */
function allows(policy: APIGatewayAuthorizerResult['policyDocument'], methodArn: string): Promise<boolean> | boolean {
  const statements = [policy.Statement].flat() as { Effect?: string; Action?: unknown; Resource?: unknown }[];
  if (statements.length > 0 && statements.every((statement) => statement.Effect === 'Allow' && statement.Action === 'execute-api:Invoke' && statement.Resource === methodArn)) return true;
  return policyAllows(policy as unknown as PolicyDocument, { action: 'execute-api:Invoke', resource: methodArn, accountId: gatewayAccount.account });
}

/** An identity source's value in a request, as API Gateway reads it; undefined when absent or empty. */
function identityValue(source: string, event: AuthorizerEvent): string | undefined {
  const [, kind, name = ''] = /^(method\.request\.header|method\.request\.querystring|context|stageVariables)\.(.+)$/.exec(source.trim()) ?? [];
  let value: unknown;
  if (kind === 'method.request.header') value = Object.entries(event.headers ?? {}).find(([header]) => header.toLowerCase() === name.toLowerCase())?.[1];
  else if (kind === 'method.request.querystring') value = event.queryStringParameters?.[name];
  else if (kind === 'context') value = name.split('.').reduce<unknown>((parent, key) => (parent as Record<string, unknown> | undefined)?.[key], event.requestContext);
  // stageVariables: the local stage has none, so an identity source there is always missing.
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** API Gateway REST hands the authorizer's context to the integration with every value as a string. */
function authorizerContext(result: APIGatewayAuthorizerResult): Record<string, string> {
  const context = Object.fromEntries(Object.entries(result.context ?? {}).map(([name, value]) => [name, String(value)]));
  return { ...context, principalId: result.principalId, integrationLatency: '0' };
}
