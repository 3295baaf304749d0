import { readLocalConfig } from '../../../local/config';
import { localConsoleClientId } from '../../../local/local-oidc-issuer';

describe("npm start's console issuer settings", () => {
  it('uses an outside issuer with the client id given, or its local client id when none is', () => {
    expect(readLocalConfig({ OIDC_ISSUER: 'https://issuer.example.test', OIDC_CLIENT_ID: 'client-1' }).oidc).toEqual({
      issuer: 'https://issuer.example.test',
      clientId: 'client-1',
    });
    expect(readLocalConfig({ OIDC_ISSUER: 'https://issuer.example.test' }).oidc).toEqual({ issuer: 'https://issuer.example.test', clientId: localConsoleClientId });
    expect(readLocalConfig({}).oidc).toBeUndefined();
  });

  it('refuses a client id without its issuer, naming both, rather than signing in at the local issuer and dropping it', () => {
    expect(() => readLocalConfig({ OIDC_CLIENT_ID: 'client-1' })).toThrow(
      /^Invalid configuration: OIDC_CLIENT_ID: is the client of an issuer, and OIDC_ISSUER is not set: set both/,
    );
  });
});

describe("npm start's support contact", () => {
  it('is what TEMPMAIL_SUPPORT_CONTACT says, and absent without it', () => {
    expect(readLocalConfig({ TEMPMAIL_SUPPORT_CONTACT: 'billing@operator.example' }).supportContact).toBe('billing@operator.example');
    expect(readLocalConfig({}).supportContact).toBeUndefined();
  });

  it.each([' ', 'x'.repeat(201)])('refuses %j, as the deploy refuses it at synth', (value) => {
    expect(() => readLocalConfig({ TEMPMAIL_SUPPORT_CONTACT: value })).toThrow(/^Invalid configuration: TEMPMAIL_SUPPORT_CONTACT: (is empty|is longer than 200 characters)/);
  });
});
