import { generateApiKey, hashApiKey } from '../../../lambdas/core/api-keys';
import { authorize, type Credentials } from '../../../lambdas/core/authorize';
import type { ApiKeyRecord } from '../../../lambdas/core/ports';
import { accountFixture, stubPorts } from '../../support/port-stubs';

const apiKey = generateApiKey('local');
const keyRecord: ApiKeyRecord = {
  keyHash: hashApiKey(apiKey),
  keyId: 'key_fixture',
  accountId: 'acc_fixture',
  env: 'local',
  status: 'active',
  createdAt: '2026-11-22T12:00:00.000Z',
};
const bearer = (key: string): Credentials => ({ authorization: [`Bearer ${key}`], query: {} });

function setup(options: Parameters<typeof stubPorts>[0] = { key: keyRecord, account: accountFixture() }) {
  const ports = stubPorts(options);
  return { ports, deps: { env: 'local', ...ports } };
}

describe('authorize', () => {
  it('allows a valid key and reserves one unit for a charged operation', async () => {
    const { ports, deps } = setup();
    const decision = await authorize(bearer(apiKey), { charge: true }, deps);
    expect(decision).toMatchObject({ decision: 'allow', accountId: 'acc_fixture', keyId: 'key_fixture', charged: true });
    expect(ports.keys.findByHash).toHaveBeenCalledWith(hashApiKey(apiKey));
    expect(ports.ledger.reserve).toHaveBeenCalledWith('acc_fixture');
  });

  it('reserves nothing for an uncharged operation', async () => {
    const { ports, deps } = setup();
    expect(await authorize(bearer(apiKey), { charge: false }, deps)).toMatchObject({ decision: 'allow', charged: false });
    expect(ports.ledger.reserve).not.toHaveBeenCalled();
  });

  it.each([
    ['no header', { authorization: [], query: {} }],
    ['two headers', { authorization: [`Bearer ${apiKey}`, `Bearer ${apiKey}`], query: {} }],
    ['another scheme', { authorization: [`Basic ${apiKey}`], query: {} }],
    ['no token', { authorization: ['Bearer '], query: {} }],
    ['a malformed key', { authorization: ['Bearer tm_local_abc'], query: {} }],
    ['a key of another environment', bearer(generateApiKey('prod'))],
  ])('refuses %s as invalid_api_key without a lookup or a charge', async (_name, credentials) => {
    const { ports, deps } = setup();
    expect(await authorize(credentials as Credentials, { charge: true }, deps)).toEqual({ decision: 'invalid_api_key' });
    expect(ports.keys.findByHash).not.toHaveBeenCalled();
    expect(ports.ledger.reserve).not.toHaveBeenCalled();
  });

  it.each([
    ['under a key-like name', { api_key: ['whatever'] }],
    ['under an innocent name', { q: [`x${apiKey}`] }],
    ['as a parameter name', { [apiKey]: [''] }],
  ])('refuses a key in the query string %s, even beside a valid header', async (_name, query) => {
    const { ports, deps } = setup();
    expect(await authorize({ authorization: [`Bearer ${apiKey}`], query }, { charge: true }, deps)).toEqual({
      decision: 'invalid_api_key',
    });
    expect(ports.ledger.reserve).not.toHaveBeenCalled();
  });

  it('accepts the scheme in any case', async () => {
    const { deps } = setup();
    expect(await authorize({ authorization: [`bearer ${apiKey}`], query: {} }, { charge: true }, deps)).toMatchObject({
      decision: 'allow',
    });
  });

  it('refuses an unknown key and a revoked key', async () => {
    expect(await authorize(bearer(apiKey), { charge: true }, setup({}).deps)).toEqual({ decision: 'invalid_api_key' });
    const revoked = setup({ key: { ...keyRecord, status: 'revoked' }, account: accountFixture() });
    expect(await authorize(bearer(apiKey), { charge: true }, revoked.deps)).toEqual({ decision: 'invalid_api_key' });
    expect(revoked.ports.ledger.reserve).not.toHaveBeenCalled();
  });

  it('refuses a stored key whose record belongs to another environment', async () => {
    const { deps } = setup({ key: { ...keyRecord, env: 'staging' }, account: accountFixture() });
    expect(await authorize(bearer(apiKey), { charge: true }, deps)).toEqual({ decision: 'invalid_api_key' });
  });

  it('answers forbidden for a suspended account, charged or not', async () => {
    const { ports, deps } = setup({ key: keyRecord, account: accountFixture({ status: 'suspended' }) });
    ports.ledger.reserve.mockResolvedValueOnce({ outcome: 'suspended' });
    expect(await authorize(bearer(apiKey), { charge: true }, deps)).toEqual({ decision: 'forbidden' });
    expect(await authorize(bearer(apiKey), { charge: false }, deps)).toEqual({ decision: 'forbidden' });
  });

  it('answers quota_exhausted when the allowance is used up', async () => {
    const account = accountFixture({ allowance: { base: 100, additional: 0, remaining: 0 } });
    const { ports, deps } = setup({ key: keyRecord, account });
    ports.ledger.reserve.mockResolvedValueOnce({ outcome: 'exhausted', account });
    expect(await authorize(bearer(apiKey), { charge: true }, deps)).toMatchObject({
      decision: 'quota_exhausted',
      allowance: { remaining: 0 },
    });
  });
});
