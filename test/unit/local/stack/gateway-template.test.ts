import { routes, type RouteDefinition } from '../../../../lambdas/api/routes';
import { declaredGatewayResponse, gatewayResponseTable } from '../../../../lib/gateway-responses';
import type { Template } from '../../../../local/iam';
import { readGatewayApi, servedApi, unservedParts, type TemplateApi } from '../../../../local/stack/gateway-template';
import { synthesizeTemplate } from '../../../support/synthesized-template';

/** The REST API `npm run start:stack` reads from the synthesized template, and what it refuses to serve. */
let synthesized: string;
beforeAll(() => {
  synthesized = JSON.stringify(synthesizeTemplate());
}, 180_000);

const read = (edit: (template: Template) => void = () => undefined): TemplateApi => {
  const template = JSON.parse(synthesized) as Template;
  edit(template);
  return readGatewayApi(template);
};
const resourcesOf = (template: Template, type: string) => Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
/** The method of a route, found through the function its integration names. */
const methodOf = (template: Template, functionPrefix: string) =>
  resourcesOf(template, 'AWS::ApiGateway::Method').find(([, method]) => String(JSON.stringify(method.Properties?.Integration?.Uri)).includes(`"${functionPrefix}`))![1];
const stageOf = (template: Template) => resourcesOf(template, 'AWS::ApiGateway::Stage')[0]![1];

describe('the REST API read from the synthesized template', () => {
  it('has one method per route of the table, at its path, authorized, integrated and streamed as the construct declared it', () => {
    const api = read();
    const byAuthorizer = new Map(api.authorizers.map((authorizer) => [authorizer.logicalId, authorizer.type]));
    const methods = api.methods.map((method) => ({
      method: method.httpMethod,
      path: method.path,
      authorization: `${method.authorizationType} ${byAuthorizer.get(method.authorizerId ?? '')}`,
      function: method.functionId?.replace(/Function[0-9A-F]{8}$/, ''),
      streamed: method.streamed,
      integrationTimeoutMs: method.integrationTimeoutMs,
    }));
    const expected = (routes as readonly RouteDefinition[]).map((route) => ({
      method: route.method,
      path: route.path,
      authorization: route.auth === 'identity' ? 'COGNITO_USER_POOLS COGNITO_USER_POOLS' : 'CUSTOM REQUEST',
      function: `Api${route.id}`,
      streamed: route.stream === true,
      // The file routes wait 2 minutes for their function; every other method API Gateway's default 29 s.
      integrationTimeoutMs: route.stream === true ? 120_000 : undefined,
    }));
    expect(methods).toHaveLength(expected.length);
    expect(methods).toEqual(expect.arrayContaining(expected));
    expect(unservedParts(api)).toEqual([]);
  });

  it("hands each method's integration time-out to the gateway it serves", () => {
    const served = servedApi(read(), { invoke: async () => undefined, verifyUserPoolToken: async () => undefined });
    const timeouts = new Map(served.methods.map((method) => [`${method.method} ${method.path}`, method.integrationTimeoutMs]));
    for (const route of routes as readonly RouteDefinition[]) expect(timeouts.get(`${route.method} ${route.path}`)).toBe(route.stream === true ? 120_000 : undefined);
  });

  it('reads the authorizers as declared: the key authorizer on the request id, never cached; the console user pool on the Authorization header', () => {
    const api = read();
    expect(api.authorizers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'REQUEST', functionId: expect.stringMatching(/^ApiAuthorizerFunction/), identitySources: ['context.requestId'], resultTtlSeconds: 0 }),
        expect.objectContaining({
          type: 'COGNITO_USER_POOLS',
          identitySources: ['method.request.header.Authorization'],
          resultTtlSeconds: 0,
          userPools: [expect.stringMatching(/^ConsoleIdentityUserPool/)],
          appClients: [expect.stringMatching(/^ConsoleIdentityUserPoolConsoleClient/)],
        }),
      ]),
    );
    expect(api.authorizers).toHaveLength(2);
  });

  it('reads the gateway responses npm start answers from, every media type binary, the stage and its throttle on every method', () => {
    const api = read();
    expect(Object.fromEntries(api.gatewayResponses)).toEqual(Object.fromEntries(gatewayResponseTable.map((row) => [row.type, declaredGatewayResponse(row)])));
    expect(api.binaryMediaTypes).toEqual(['*/*']);
    expect(api.stageName).toBe('test');
    expect(new Set(api.methods.map((method) => JSON.stringify(method.throttle)))).toEqual(new Set([JSON.stringify({ rate: 5000, burst: 5000 })]));
  });

  it("gives a method its own throttle settings over the stage's, each value it sets", () => {
    const api = read((template) => {
      const settings = stageOf(template).Properties!.MethodSettings as object[];
      settings.push({ HttpMethod: 'GET', ResourcePath: '/~1v1~1domains', ThrottlingRateLimit: 1, ThrottlingBurstLimit: 2 });
      settings.push({ HttpMethod: 'POST', ResourcePath: '/~1console~1v1~1keys', ThrottlingRateLimit: 3 });
    });
    const throttleOf = (method: string, path: string) => api.methods.find((candidate) => candidate.httpMethod === method && candidate.path === path)?.throttle;
    expect(throttleOf('GET', '/v1/domains')).toEqual({ rate: 1, burst: 2 });
    expect(throttleOf('POST', '/console/v1/keys')).toEqual({ rate: 3, burst: 5000 });
    expect(throttleOf('GET', '/console/v1/keys')).toEqual({ rate: 5000, burst: 5000 });
  });

  it("reads API Gateway's defaults where the template is silent: a 300 s cache, no throttle; and every identity source of a list", () => {
    const api = read((template) => {
      for (const [, authorizer] of resourcesOf(template, 'AWS::ApiGateway::Authorizer')) {
        if (authorizer.Properties!.Type !== 'REQUEST') continue;
        delete authorizer.Properties!.AuthorizerResultTtlInSeconds;
        authorizer.Properties!.IdentitySource = 'method.request.header.Authorization, method.request.querystring.key';
      }
      delete stageOf(template).Properties!.MethodSettings;
    });
    expect(api.authorizers.find((authorizer) => authorizer.type === 'REQUEST')).toMatchObject({
      identitySources: ['method.request.header.Authorization', 'method.request.querystring.key'],
      resultTtlSeconds: 300,
    });
    expect(api.methods.filter((method) => method.throttle)).toEqual([]);
  });

  it('names each part of an API the local gateway does not emulate', () => {
    const api = read((template) => {
      methodOf(template, 'ApilistDomainsFunction').Properties!.AuthorizationType = 'AWS_IAM';
      methodOf(template, 'ApigetUsageFunction').Properties!.Integration = { Type: 'MOCK' };
      methodOf(template, 'ApiconsoleListKeysFunction').Properties!.AuthorizationScopes = ['email'];
      for (const [, authorizer] of resourcesOf(template, 'AWS::ApiGateway::Authorizer')) {
        if (authorizer.Properties!.Type === 'REQUEST') authorizer.Properties!.Type = 'TOKEN';
      }
    });
    const problems = unservedParts(api);
    expect(problems).toEqual(
      expect.arrayContaining([
        'GET /v1/domains: AWS_IAM authorization',
        'GET /v1/usage: a MOCK integration, not a Lambda proxy',
        'GET /console/v1/keys: authorization scopes',
        'POST /v1/emails: CUSTOM authorization by a TOKEN authorizer of the template',
      ]),
    );
  });
});
