import { tableEnvironmentName, tableKeys } from '../../../lambdas/adapters/dynamodb/table-definitions';
import type { ApiRequest, ApiResult } from '../../../lambdas/api/api-types';
import { withCursorSecret } from '../../../lambdas/composition/cursor-secret';
import type * as FunctionServicesModule from '../../../lambdas/composition/lambda-function-services';
import { lambdaFunctionServices, type FunctionServices } from '../../../lambdas/composition/lambda-function-services';
import type * as LambdaServices from '../../../lambdas/composition/lambda-services';
import { lambdaRoute } from '../../../lambdas/composition/lambda-route';
import type { ApiServices, ConsoleServices, CursorServices } from '../../../lambdas/composition/services';
import { authorizerFunction, parserFunction, routeFunctions, sweeperFunction, type FunctionDeclaration } from '../../../lambdas/function-manifest';

/** The environment the stack gives a console function (lib/api.ts), with local values. */
const environment = {
  TEMPMAIL_ENV: 'test',
  LOG_LEVEL: 'silent',
  AWS_REGION: 'eu-west-1',
  OIDC_ISSUER: 'https://issuer.example.test',
  OIDC_CLIENT_ID: 'console',
  BLOB_BUCKET: 'test-blobs',
  ...Object.fromEntries(tableKeys.map((key) => [tableEnvironmentName(key), `test-${key}`])),
};

const saved = { ...process.env };
beforeEach(() => Object.assign(process.env, environment));
afterEach(() => {
  for (const name of Object.keys(environment)) delete process.env[name];
  Object.assign(process.env, saved);
});

/** A fresh cold start: the composition roots keep their services per module instance. */
function coldStart(): typeof LambdaServices {
  let module: typeof LambdaServices | undefined;
  jest.isolateModules(() => {
    module = require('../../../lambdas/composition/lambda-services');
  });
  return module!;
}

/** A declared function's services. The API's part and the blob store are kept per instance, as in Lambda; `fresh` starts a new one. */
function servicesOf<D extends FunctionDeclaration>(declaration: D, fresh = false): FunctionServices<D> {
  if (!fresh) return lambdaFunctionServices(declaration)();
  let module: typeof FunctionServicesModule | undefined;
  jest.isolateModules(() => {
    module = require('../../../lambdas/composition/lambda-function-services');
  });
  return module!.lambdaFunctionServices(declaration)();
}

function route(id: string): FunctionDeclaration {
  return routeFunctions.find((declaration) => declaration.name === id)!;
}

describe('the Lambda composition builds what the function’s manifest row names', () => {
  it('the blob store where the row has blob access, and nowhere else', () => {
    for (const declaration of [parserFunction, sweeperFunction, route('getMessage'), route('getAttachment')]) {
      expect(typeof (servicesOf(declaration) as Partial<{ blobs: unknown }>).blobs).toBe('object');
    }
    for (const declaration of [authorizerFunction, route('getUsage'), route('listMessages'), route('consoleListKeys')]) {
      expect(servicesOf(declaration)).not.toHaveProperty('blobs');
    }
  });

  it('the identity verifier for a console route only', () => {
    const console = servicesOf(route('consoleListEmails')) as Partial<ConsoleServices>;
    expect(typeof console.identityVerifier?.verify).toBe('function');
    expect(servicesOf(route('getUsage'))).not.toHaveProperty('identityVerifier');
    expect(servicesOf(authorizerFunction)).not.toHaveProperty('identityVerifier');
  });

  it('and no cursor secret in any function’s services: not in their type, not in the object', () => {
    for (const declaration of [authorizerFunction, parserFunction, route('listMessages'), route('consoleListEmails')]) {
      expect(servicesOf(declaration)).not.toHaveProperty('cursorSecret');
    }
    expect(servicesOf(parserFunction).env).toBe('test');
  });

  it('says which variable a blob function lacks', () => {
    delete process.env.BLOB_BUCKET;
    expect(() => servicesOf(parserFunction, true)).toThrow('BLOB_BUCKET is not set');
  });

  it('keeps the contract’s lifetimes unless the stack was synthesized with others', () => {
    expect(coldStart().lambdaServices()).toMatchObject({ messageTtlSeconds: 900, emailTtlSeconds: 2_592_000 });
    Object.assign(process.env, { TEMPMAIL_MESSAGE_TTL_SECONDS: '60', TEMPMAIL_EMAIL_TTL_SECONDS: '3600' });
    try {
      expect(coldStart().lambdaServices()).toMatchObject({ messageTtlSeconds: 60, emailTtlSeconds: 3600 });
      process.env.TEMPMAIL_MESSAGE_TTL_SECONDS = '15m';
      expect(() => coldStart().lambdaServices()).toThrow();
    } finally {
      delete process.env.TEMPMAIL_MESSAGE_TTL_SECONDS;
      delete process.env.TEMPMAIL_EMAIL_TTL_SECONDS;
    }
  });
});

describe('a route’s type is its row’s', () => {
  const answer = async (): Promise<ApiResult> => ({ status: 200, body: {} });
  const cursorRoute = async (_request: unknown, services: CursorServices) => answer().then((result) => ({ ...result, body: { secret: services.cursorSecret } }));
  const blobRoute = async (_request: unknown, services: ApiServices & { blobs: object }) => answer().then((result) => ({ ...result, body: { blobs: typeof services.blobs } }));

  it('a route that signs cursors or reads blobs compiles only on a row that grants them', () => {
    expect(typeof lambdaRoute('listMessages', cursorRoute)).toBe('function');
    expect(typeof lambdaRoute('getMessage', blobRoute)).toBe('function');
    // @ts-expect-error getUsage's row has no cursor secret
    expect(typeof lambdaRoute('getUsage', cursorRoute)).toBe('function');
    // @ts-expect-error getEmail's row has no blob access
    expect(typeof lambdaRoute('getEmail', blobRoute)).toBe('function');
    // @ts-expect-error a console row takes a console route, whose request carries the signed-in identity
    expect(typeof lambdaRoute('consoleListKeys', async (request: ApiRequest) => answer().then(() => ({ status: 200, body: request.account })))).toBe('function');
  });

  it('hands a cursor route its secret only through the wiring that holds it; the compiler refuses it the bare services', async () => {
    const services = servicesOf(route('consoleListEmails')) as ConsoleServices;
    const seen: string[] = [];
    const consoleCursorRoute = async (_request: unknown, withSecret: CursorServices<ConsoleServices>) => {
      seen.push(withSecret.cursorSecret);
      return answer();
    };
    // @ts-expect-error a route that signs cursors cannot be given services without the secret
    const unwired: (request: unknown, services: ConsoleServices) => unknown = consoleCursorRoute;
    expect(typeof unwired).toBe('function');
    await withCursorSecret(consoleCursorRoute, async () => 'x'.repeat(32))({}, services);
    expect(seen).toEqual(['x'.repeat(32)]);
    expect(services).not.toHaveProperty('cursorSecret');
  });
});
