import { synthesisContext } from '../../../../local/stack/start-stack';
import { testConfig } from '../../../support/test-config';

describe('the context start:stack synthesizes the app with', () => {
  it('carries the stage and domains, and no lifetime while they are the contract’s (one synthesis serves the usual runs)', () => {
    expect(synthesisContext({ ...testConfig, domains: ['a.test', 'b.test'], env: 'dev' })).toEqual({ stage: 'dev', domains: 'a.test,b.test' });
  });

  it('carries the TTL overrides of npm start’s interface when they differ', () => {
    expect(synthesisContext({ ...testConfig, messageTtlSeconds: 60, emailTtlSeconds: 3600 })).toEqual({
      stage: 'local',
      domains: 'tempmail.localhost',
      messageTtlSeconds: '60',
      emailTtlSeconds: '3600',
    });
  });
});
