import { tableEnvironmentName, tableKeys } from '../../../lambdas/adapters/dynamodb/table-definitions';
import { withCursorSecret } from '../../../lambdas/composition/cursor-secret';
import type * as LambdaServices from '../../../lambdas/composition/lambda-services';
import type { ConsoleServices, CursorServices } from '../../../lambdas/composition/services';

/** The environment the stack gives a console function (lib/api.ts), with local values. */
const environment = {
  TEMPMAIL_ENV: 'test',
  LOG_LEVEL: 'silent',
  AWS_REGION: 'eu-west-1',
  OIDC_ISSUER: 'https://issuer.example.test',
  OIDC_CLIENT_ID: 'console',
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

describe('the Lambda composition roots', () => {
  it('hold no cursor secret: not in their type, not in the object, so no route signs cursors with an empty key', () => {
    expect(coldStart().lambdaServices()).not.toHaveProperty('cursorSecret');
    const services = coldStart().consoleLambdaServices();
    expect(services).not.toHaveProperty('cursorSecret');
    expect(typeof services.identityVerifier.verify).toBe('function');
    expect(services.env).toBe('test');
  });

  it('hold none in the blob functions’ services either', () => {
    process.env.BLOB_BUCKET = 'test-blobs';
    try {
      let blobServices: typeof import('../../../lambdas/composition/lambda-blob-services') | undefined;
      jest.isolateModules(() => {
        blobServices = require('../../../lambdas/composition/lambda-blob-services');
      });
      const services = blobServices!.lambdaBlobServices();
      expect(services).not.toHaveProperty('cursorSecret');
      expect(typeof services.blobs.put).toBe('function');
      expect(services.env).toBe('test');
    } finally {
      delete process.env.BLOB_BUCKET;
    }
  });

  it('keep the contract’s lifetimes unless the stack was synthesized with others', () => {
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

  it('hand a cursor route its secret only through the wiring that holds it; the compiler refuses it the bare services', async () => {
    const services = coldStart().consoleLambdaServices();
    const seen: string[] = [];
    const cursorRoute = async (_request: unknown, withSecret: CursorServices<typeof services>) => {
      seen.push(withSecret.cursorSecret);
      return { status: 200, body: {} };
    };
    // @ts-expect-error a route that signs cursors cannot be given services without the secret
    const unwired: (request: unknown, services: ConsoleServices) => unknown = cursorRoute;
    expect(typeof unwired).toBe('function');
    await withCursorSecret(cursorRoute, async () => 'x'.repeat(32))({}, services);
    expect(seen).toEqual(['x'.repeat(32)]);
    expect(services).not.toHaveProperty('cursorSecret');
  });
});
