import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { cursorSecretSource, withCursorSecret } from '../../../lambdas/composition/cursor-secret';
import type { ApiServices } from '../../../lambdas/composition/services';
import type { ApiRequest } from '../../../lambdas/api/api-types';

const secretsManager = mockClient(SecretsManagerClient);
const client = new SecretsManagerClient({ region: 'us-east-1' });
const arn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:CursorSecret-AbCdEf';
const value = 'cursor-secret-from-secrets-manager-0123456789';

beforeEach(() => secretsManager.reset());

describe('the cursor secret in Lambda', () => {
  it('is read from Secrets Manager at the first request, by ARN, then served from the cache', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: value });
    const secret = cursorSecretSource(client, arn);
    expect(secretsManager.calls()).toHaveLength(0);
    await expect(secret()).resolves.toBe(value);
    await expect(secret()).resolves.toBe(value);
    expect(secretsManager.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input)).toEqual([{ SecretId: arn }]);
  });

  it('is read again after a failed read, never caching the failure', async () => {
    secretsManager.on(GetSecretValueCommand).rejectsOnce(new Error('throttled')).resolves({ SecretString: value });
    const secret = cursorSecretSource(client, arn);
    await expect(secret()).rejects.toThrow('throttled');
    await expect(secret()).resolves.toBe(value);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('refuses a missing or short secret rather than sign cursors with it', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: 'short' });
    await expect(cursorSecretSource(client, arn)()).rejects.toThrow('shorter than 32');
  });

  it('hands the route its services with the secret, leaving the shared services untouched', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: value });
    const seen: string[] = [];
    const route = withCursorSecret(async (_request, services) => {
      seen.push(services.cursorSecret);
      return { status: 200, body: {} };
    }, cursorSecretSource(client, arn));
    const services = { env: 'prod' } as unknown as ApiServices;
    await route({} as ApiRequest, services);
    expect(seen).toEqual([value]);
    expect(services).not.toHaveProperty('cursorSecret');
  });
});
