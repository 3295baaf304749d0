import type { Writable } from 'node:stream';
import type { IdentityVerifier } from '../../lambdas/core/ports/identity-verifier';
import { InvalidIdentityToken } from '../../lambdas/core/errors';
import type { DeclaredGatewayResponse } from '../../lib/gateway-responses';
import type { GatewayApi, MethodAuthorization } from '../api-gateway';
import { functionOf, resourcesOfType, type Template } from './template';

/**
 * The part of `npm run start:stack` that reads the REST API from the synthesized template, as API
 * Gateway would deploy it: the resource tree and its methods (authorization, authorizer, the
 * function each integrates with, transfer mode), the authorizers, the gateway responses, the
 * binary media types and the stage's throttling. `servedApi` hands it to the local gateway.
 */

type Json = unknown;

export interface TemplateMethod {
  logicalId: string;
  httpMethod: string;
  /** The resource path, from the chain of `AWS::ApiGateway::Resource` path parts, with `{param}` placeholders. */
  path: string;
  authorizationType: string;
  authorizerId?: string;
  authorizationScopes: string[];
  apiKeyRequired: boolean;
  integrationType: string;
  /** The function a Lambda proxy integration invokes. */
  functionId?: string;
  /** Integration response transfer mode STREAM. */
  streamed: boolean;
  /** The integration's `TimeoutInMillis`; absent: API Gateway's default, 29 s. */
  integrationTimeoutMs?: number;
  /** The stage's throttle for this method (its own method setting over the stage-wide one); absent: none declared. */
  throttle?: { rate: number; burst: number };
}

export interface TemplateAuthorizer {
  logicalId: string;
  type: string;
  /** The function of a Lambda (REQUEST or TOKEN) authorizer. */
  functionId?: string;
  identitySources: string[];
  /** API Gateway's default when the template says nothing: 300 s. */
  resultTtlSeconds: number;
  /** The template's user pools a COGNITO_USER_POOLS authorizer names, and the app clients of those pools. */
  userPools: string[];
  providerArns: number;
  appClients: string[];
}

export interface TemplateApi {
  stageName: string;
  binaryMediaTypes: string[];
  methods: TemplateMethod[];
  authorizers: TemplateAuthorizer[];
  gatewayResponses: Map<string, DeclaredGatewayResponse>;
}

interface MethodSetting {
  HttpMethod?: string;
  ResourcePath?: string;
  ThrottlingRateLimit?: number;
  ThrottlingBurstLimit?: number;
}

/** The account-level quota API Gateway applies where a stage sets only one of rate and burst. */
const accountThrottle = { rate: 10_000, burst: 5_000 };

const refOf = (value: Json): string | undefined => (value as { Ref?: string } | undefined)?.Ref;
const getAttOf = (value: Json, attribute: string): string | undefined => {
  const [id, name] = (value as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'] ?? [];
  return name === attribute ? id : undefined;
};

/** The template's REST API as API Gateway deploys it. */
export function readGatewayApi(template: Template): TemplateApi {
  const apis = resourcesOfType(template, 'AWS::ApiGateway::RestApi');
  if (apis.length !== 1) throw new Error(`the template declares ${apis.length} REST APIs; the local gateway serves exactly one`);
  const [apiId, restApi] = apis[0]!;
  const ofApi = (type: string) => resourcesOfType(template, type).filter(([, resource]) => refOf(resource.Properties?.RestApiId) === apiId);
  const pathOf = (resourceId: Json): string => {
    const id = refOf(resourceId);
    const resource = id ? template.Resources[id] : undefined;
    if (!resource || resource.Type !== 'AWS::ApiGateway::Resource') return '';
    return `${pathOf(resource.Properties?.ParentId)}/${String(resource.Properties?.PathPart)}`;
  };
  const stage = ofApi('AWS::ApiGateway::Stage')[0]?.[1]?.Properties ?? {};
  const settings = (stage.MethodSettings ?? []) as MethodSetting[];

  const methods = ofApi('AWS::ApiGateway::Method').map(([logicalId, method]): TemplateMethod => {
    const properties = method.Properties ?? {};
    const integration = (properties.Integration ?? {}) as { Type?: string; Uri?: Json; ResponseTransferMode?: string; TimeoutInMillis?: number };
    const httpMethod = String(properties.HttpMethod);
    const path = pathOf(properties.ResourceId) || '/';
    const throttle = throttleOf(settings, httpMethod, path);
    const functionId = integration.Type === 'AWS_PROXY' ? functionOf(integration.Uri) : undefined;
    const authorizerId = refOf(properties.AuthorizerId);
    return {
      logicalId,
      httpMethod,
      path,
      authorizationType: String(properties.AuthorizationType ?? 'NONE'),
      ...(authorizerId ? { authorizerId } : {}),
      authorizationScopes: (properties.AuthorizationScopes ?? []) as string[],
      apiKeyRequired: properties.ApiKeyRequired === true,
      integrationType: String(integration.Type ?? 'none'),
      ...(functionId ? { functionId } : {}),
      streamed: integration.ResponseTransferMode === 'STREAM',
      ...(integration.TimeoutInMillis !== undefined ? { integrationTimeoutMs: Number(integration.TimeoutInMillis) } : {}),
      ...(throttle ? { throttle } : {}),
    };
  });

  const authorizers = ofApi('AWS::ApiGateway::Authorizer').map(([logicalId, authorizer]): TemplateAuthorizer => {
    const properties = authorizer.Properties ?? {};
    const providerArns = (properties.ProviderARNs ?? []) as Json[];
    const userPools = providerArns.flatMap((arn) => getAttOf(arn, 'Arn') ?? []);
    const functionId = properties.AuthorizerUri ? functionOf(properties.AuthorizerUri) : undefined;
    return {
      logicalId,
      type: String(properties.Type),
      ...(functionId ? { functionId } : {}),
      identitySources: String(properties.IdentitySource ?? '')
        .split(',')
        .map((source) => source.trim())
        .filter(Boolean),
      resultTtlSeconds: Number(properties.AuthorizerResultTtlInSeconds ?? 300),
      userPools,
      providerArns: providerArns.length,
      appClients: resourcesOfType(template, 'AWS::Cognito::UserPoolClient')
        .filter(([, client]) => userPools.includes(refOf(client.Properties?.UserPoolId) ?? ''))
        .map(([id]) => id),
    };
  });

  const gatewayResponses = new Map(
    ofApi('AWS::ApiGateway::GatewayResponse').map(([, response]): [string, DeclaredGatewayResponse] => {
      const properties = response.Properties ?? {};
      const headers = Object.entries((properties.ResponseParameters ?? {}) as Record<string, string>).flatMap(([key, value]) => {
        const name = /^gatewayresponse\.header\.(.+)$/.exec(key)?.[1];
        return name ? [[name, String(value)] as const] : [];
      });
      return [
        String(properties.ResponseType),
        {
          ...(properties.StatusCode !== undefined ? { statusCode: Number(properties.StatusCode) } : {}),
          headers: Object.fromEntries(headers),
          templates: (properties.ResponseTemplates ?? {}) as Record<string, string>,
        },
      ];
    }),
  );

  return {
    stageName: String(stage.StageName ?? 'prod'),
    binaryMediaTypes: ((restApi.Properties?.BinaryMediaTypes ?? []) as string[]).map((type) => type.replace(/~1/g, '/')),
    methods,
    authorizers,
    gatewayResponses,
  };
}

/**
 * A method's throttle from the stage's method settings: the stage-wide entry (`*` on `/*`), then
 * the method's own (its resource path written with `~1` for `/`), whose values win.
 */
function throttleOf(settings: MethodSetting[], httpMethod: string, path: string): { rate: number; burst: number } | undefined {
  const resourcePathOf = (setting: MethodSetting) => (setting.ResourcePath === '/*' ? '/*' : (setting.ResourcePath ?? '').slice(1).replace(/~1/g, '/'));
  const specificity = (setting: MethodSetting) => Number(setting.HttpMethod !== '*') + Number(setting.ResourcePath !== '/*');
  const applying = settings
    .filter((setting) => (setting.HttpMethod === '*' || setting.HttpMethod === httpMethod) && (resourcePathOf(setting) === '/*' || resourcePathOf(setting) === path))
    .sort((a, b) => specificity(a) - specificity(b));
  let rate: number | undefined;
  let burst: number | undefined;
  for (const setting of applying) {
    rate = setting.ThrottlingRateLimit ?? rate;
    burst = setting.ThrottlingBurstLimit ?? burst;
  }
  if (rate === undefined && burst === undefined) return undefined;
  return { rate: rate ?? accountThrottle.rate, burst: burst ?? accountThrottle.burst };
}

/** Every function the API runs: each method's integration and each Lambda authorizer. */
export function apiFunctions(api: TemplateApi): string[] {
  return [...api.methods.flatMap((method) => method.functionId ?? []), ...api.authorizers.flatMap((authorizer) => authorizer.functionId ?? [])];
}

/**
 * What of the template's API the local gateway does not emulate, each named: `npm run
 * start:stack` refuses to start on any, rather than serve another API than the template's.
 */
export function unservedParts(api: TemplateApi): string[] {
  const problems: string[] = [];
  const authorizers = new Map(api.authorizers.map((authorizer) => [authorizer.logicalId, authorizer]));
  for (const method of api.methods) {
    const name = `${method.httpMethod} ${method.path}`;
    if (!method.functionId) problems.push(`${name}: a ${method.integrationType} integration, not a Lambda proxy`);
    if (method.apiKeyRequired) problems.push(`${name}: an API key of a usage plan`);
    if (method.authorizationScopes.length > 0) problems.push(`${name}: authorization scopes`);
    if (method.authorizationType === 'NONE') continue;
    const authorizer = method.authorizerId ? authorizers.get(method.authorizerId) : undefined;
    const expected = { CUSTOM: 'REQUEST', COGNITO_USER_POOLS: 'COGNITO_USER_POOLS' }[method.authorizationType];
    if (!expected) problems.push(`${name}: ${method.authorizationType} authorization`);
    else if (authorizer?.type !== expected) problems.push(`${name}: ${method.authorizationType} authorization by ${authorizer ? `a ${authorizer.type}` : 'no'} authorizer of the template`);
  }
  for (const authorizer of api.authorizers) {
    if (authorizer.type === 'REQUEST' && !authorizer.functionId) problems.push(`the REQUEST authorizer ${authorizer.logicalId}: no function of the template`);
    if (authorizer.type === 'COGNITO_USER_POOLS' && (authorizer.providerArns !== 1 || authorizer.userPools.length !== 1 || authorizer.appClients.length === 0)) {
      problems.push(`the Cognito authorizer ${authorizer.logicalId}: not one user pool of the template with an app client, for which the local issuer stands in`);
    }
  }
  return problems;
}

export interface ApiBindings {
  /** Invokes a function of the stack by its logical id (streamed into `stream` when given). */
  invoke(functionId: string, event: unknown, stream?: Writable): Promise<unknown>;
  /**
   * Checks a token as a user pool's authorizer does, against the issuer that stands in for the
   * pool and its app client: the token's claims, or undefined when refused.
   */
  verifyUserPoolToken(token: string): Promise<Record<string, string> | undefined>;
}

/** The template's API as the local gateway serves it: each method's function and authorizer bound to the running stack. */
export function servedApi(api: TemplateApi, bind: ApiBindings): GatewayApi {
  // One authorization per authorizer, shared by its methods: its result cache is the authorizer's.
  const authorizations = new Map(
    api.authorizers.map((authorizer): [string, MethodAuthorization] => [
      authorizer.logicalId,
      authorizer.type === 'COGNITO_USER_POOLS'
        ? {
            type: 'COGNITO_USER_POOLS',
            authorizer: { identitySource: authorizer.identitySources[0] ?? '', resultTtlSeconds: authorizer.resultTtlSeconds, verify: bind.verifyUserPoolToken },
          }
        : {
            type: 'CUSTOM',
            authorizer: {
              identitySources: authorizer.identitySources,
              resultTtlSeconds: authorizer.resultTtlSeconds,
              invoke: async (event) => (await bind.invoke(authorizer.functionId!, event)) as never,
            },
          },
    ]),
  );
  return {
    stage: api.stageName,
    binaryMediaTypes: api.binaryMediaTypes,
    responses: api.gatewayResponses,
    methods: api.methods.map((method) => ({
      id: method.logicalId,
      method: method.httpMethod,
      path: method.path,
      authorization: method.authorizationType === 'NONE' ? { type: 'NONE' } : authorizations.get(method.authorizerId!)!,
      ...(method.throttle ? { throttle: method.throttle } : {}),
      ...(method.integrationTimeoutMs !== undefined ? { integrationTimeoutMs: method.integrationTimeoutMs } : {}),
      target: method.streamed
        ? { mode: 'streamed', fn: async (event, stream) => void (await bind.invoke(method.functionId!, event, stream)) }
        : { mode: 'buffered', fn: async (event) => (await bind.invoke(method.functionId!, event)) as never },
    })),
  };
}

/**
 * A user pool's token check, standing in with an OpenID Connect issuer and its client: the token
 * verified as Cognito's authorizer does (signature against the issuer's keys, `iss`, `aud` the app
 * client, expiry, `token_use` an ID token where marked), with the console functions' own verifier.
 * A refused token is undefined (the gateway's 401); an issuer that cannot be reached, a failure.
 */
export function userPoolCheck(verifier: () => IdentityVerifier): ApiBindings['verifyUserPoolToken'] {
  return async (token) => {
    try {
      const identity = await verifier().verify(token);
      return { iss: identity.issuer, sub: identity.subject, ...(identity.email !== undefined ? { email: identity.email } : {}) };
    } catch (error) {
      if (error instanceof InvalidIdentityToken) return undefined;
      throw error;
    }
  };
}
