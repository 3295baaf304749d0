import { generateApiKey, hashApiKey } from '../../../lambdas/core/api-keys';
import { authorize, type Credentials } from '../../../lambdas/core/authorize';
import type { ApiKeyRecord } from '../../../lambdas/core/ports/api-key-store';
import { accountFixture, stubPorts } from '../../support/port-stubs';
import { TestClock } from '../../support/test-clock';

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
  return { ports, deps: { env: 'local', ...ports, clock: new TestClock('2026-11-22T12:00:45.000Z') } };
}

describe('authorize', () => {
  it('allows a valid key, counting it in the current minute and reserving one unit', async () => {
    const { ports, deps } = setup();
    const decision = await authorize(bearer(apiKey), { charge: true }, deps);
    expect(decision).toMatchObject({ decision: 'allow', accountId: 'acc_fixture', keyId: 'key_fixture', charged: true });
    expect(ports.keys.findByHash).toHaveBeenCalledWith(hashApiKey(apiKey));
    const minute = Math.floor(Date.parse('2026-11-22T12:00:00.000Z') / 60_000);
    expect(ports.ledger.reserve).toHaveBeenCalledWith('acc_fixture', {
      keyId: 'key_fixture',
      charge: true,
      window: { id: minute, perKey: 300, perAccount: 600 },
      at: '2026-11-22T12:00:45.000Z',
    });
  });

  it('counts an uncharged operation in the short window without reserving allowance', async () => {
    const { ports, deps } = setup();
    expect(await authorize(bearer(apiKey), { charge: false }, deps)).toMatchObject({ decision: 'allow', charged: false });
    expect(ports.ledger.reserve).toHaveBeenCalledWith('acc_fixture', expect.objectContaining({ charge: false }));
  });

  it('answers rate_limited with the seconds left in the minute when a window is full', async () => {
    const account = accountFixture();
    const { ports, deps } = setup({ key: keyRecord, account });
    ports.ledger.reserve.mockResolvedValueOnce({ outcome: 'rate_limited', account, scope: 'key' });
    expect(await authorize(bearer(apiKey), { charge: true }, deps)).toMatchObject({
      decision: 'rate_limited',
      retryAfterSeconds: 15,
    });
  });

  it('refuses a key whose account belongs to another environment', async () => {
    const { deps } = setup({ key: keyRecord, account: accountFixture({ env: 'staging' }) });
    expect(await authorize(bearer(apiKey), { charge: false }, deps)).toEqual({ decision: 'invalid_api_key' });
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
    ports.ledger.reserve.mockResolvedValue({ outcome: 'suspended' });
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
