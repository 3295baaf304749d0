import { synthesisContext } from '../../../../local/stack/start-stack';
import { readLocalConfig } from '../../../../local/config';
import { testConfig } from '../../../support/test-config';

/** The test configuration without a support contact: what npm start's defaults give. */
const { supportContact: _unset, ...withoutContact } = testConfig;

describe('the context start:stack synthesizes the app with', () => {
  it('carries the stage and domains, and no lifetime while they are the contract’s (one synthesis serves the usual runs)', () => {
    expect(synthesisContext({ ...withoutContact, domains: ['a.test', 'b.test'], env: 'dev' })).toEqual({ stage: 'dev', domains: 'a.test,b.test' });
  });

  it('carries the TTL overrides of npm start’s interface when they differ', () => {
    expect(synthesisContext({ ...withoutContact, messageTtlSeconds: 60, emailTtlSeconds: 3600 })).toEqual({
      stage: 'local',
      domains: 'tempmail.localhost',
      messageTtlSeconds: '60',
      emailTtlSeconds: '3600',
    });
  });

  it('carries TEMPMAIL_SUPPORT_CONTACT as the console’s published support contact, and nothing without it', () => {
    expect(synthesisContext(readLocalConfig({ TEMPMAIL_SUPPORT_CONTACT: 'billing@operator.example' }))).toEqual({
      stage: 'local',
      domains: 'tempmail.localhost',
      supportContact: 'billing@operator.example',
    });
    expect(synthesisContext(readLocalConfig({}))).toEqual({ stage: 'local', domains: 'tempmail.localhost' });
  });
});
