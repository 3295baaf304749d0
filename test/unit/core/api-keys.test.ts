import { apiKeyEnvironment, containsApiKey, generateApiKey, hashApiKey } from '../../../lambdas/core/api-keys';

describe('API keys', () => {
  it('carries its environment and 256 random bits', () => {
    const key = generateApiKey('staging');
    expect(key).toMatch(/^tm_staging_[A-Za-z0-9_-]{43}$/);
    expect(apiKeyEnvironment(key)).toBe('staging');
    expect(Buffer.from(key.slice('tm_staging_'.length), 'base64url')).toHaveLength(32);
    expect(generateApiKey('staging')).not.toBe(key);
  });

  it('reads no environment from a malformed key', () => {
    for (const bad of ['', 'tm_local_short', 'sk_local_' + 'a'.repeat(43), 'tm_LOCAL_' + 'a'.repeat(43), 'tm_local_' + 'a'.repeat(44)]) {
      expect(apiKeyEnvironment(bad)).toBeUndefined();
    }
  });

  it('is stored only as its SHA-256', () => {
    const key = generateApiKey('local');
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(9));
    expect(hashApiKey(key)).toBe(hashApiKey(key));
  });

  it('is recognized inside other text', () => {
    const key = generateApiKey('local');
    expect(containsApiKey(`prefix-${key}-suffix`)).toBe(true);
    expect(containsApiKey('tm_local_not-a-key')).toBe(false);
  });

  it('refuses an invalid environment name', () => {
    expect(() => generateApiKey('Prod_1')).toThrow('Invalid environment name');
  });
});
