import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { functionEnvironmentNames } from './function-environment';
import type { RouteHandler } from '../api/api-types';
import type { ApiServices, CursorServices } from './services';

/**
 * Reads the cursor secret from Secrets Manager once per cold start and keeps it: a failed read is
 * not cached, so the next request tries again. The value never sits in the function's
 * environment, and a rotated value is used from the next cold start on.
 */
export function cursorSecretSource(client: Pick<SecretsManagerClient, 'send'>, secretId: string): () => Promise<string> {
  let secret: Promise<string> | undefined;
  return () => {
    secret ??= client.send(new GetSecretValueCommand({ SecretId: secretId })).then((output) => {
      const value = output.SecretString;
      if (!value || value.length < 32) throw new Error('the cursor secret is missing or shorter than 32 characters');
      return value;
    });
    secret.catch(() => {
      secret = undefined;
    });
    return secret;
  };
}

/**
 * Gives a route that signs or reads cursors the secret, read at its first request (the Lambda
 * runtime cannot await at import). Only these routes are granted the secret, and this is the one
 * place in Lambda that makes their `CursorServices` out of services without it.
 */
export function withCursorSecret<R, S extends ApiServices>(
  route: (request: R, services: CursorServices<S>) => ReturnType<RouteHandler>,
  secret: () => Promise<string>,
): (request: R, services: S) => ReturnType<RouteHandler> {
  return async (request, services) => route(request, { ...services, cursorSecret: await secret() });
}

let lambdaSource: (() => Promise<string>) | undefined;

/** The Lambda runtime's source: the secret named by `CURSOR_SECRET_ARN`, which the stack sets on the cursor routes only. */
export function lambdaCursorSecret(): Promise<string> {
  if (!lambdaSource) {
    const name = functionEnvironmentNames.cursorSecretArn;
    const secretId = process.env[name];
    if (!secretId) return Promise.reject(new Error(`${name} is not set`));
    lambdaSource = cursorSecretSource(new SecretsManagerClient({}), secretId);
  }
  return lambdaSource();
}
