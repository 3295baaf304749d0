import { tableEnvironmentName, tableKeys } from '../../../lambdas/adapters/dynamodb/table-definitions';
import type * as LambdaServices from '../../../lambdas/composition/lambda-services';

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
  it('refuse the cursor secret to a function that was not given it, loudly', () => {
    expect(() => coldStart().lambdaServices().cursorSecret).toThrow('this function was not given the cursor secret');
  });

  it('keep that guard in the console services: no route signs cursors with an undefined key', () => {
    const services = coldStart().consoleLambdaServices();
    expect(() => services.cursorSecret).toThrow('this function was not given the cursor secret');
    expect(typeof services.identityVerifier.verify).toBe('function');
    expect(services.env).toBe('test');
  });

  it('keep that guard in the blob functions’ services too', () => {
    process.env.BLOB_BUCKET = 'test-blobs';
    try {
      let blobServices: typeof import('../../../lambdas/composition/lambda-blob-services') | undefined;
      jest.isolateModules(() => {
        blobServices = require('../../../lambdas/composition/lambda-blob-services');
      });
      const services = blobServices!.lambdaBlobServices();
      expect(() => services.cursorSecret).toThrow('this function was not given the cursor secret');
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

  it('hand a route wrapped with the secret its value, over the console services', async () => {
    const { withCursorSecret } = require('../../../lambdas/composition/cursor-secret');
    const services = coldStart().consoleLambdaServices();
    const seen: string[] = [];
    const route = withCursorSecret(async (_request: unknown, withSecret: typeof services) => {
      seen.push(withSecret.cursorSecret);
      return { status: 200, body: {} };
    }, async () => 'x'.repeat(32));
    await route({}, services);
    expect(seen).toEqual(['x'.repeat(32)]);
  });
});
