import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLocalConfig } from '../../../../local/config';
import { ignoredSettings, stackSettings } from '../../../../local/stack/stack-settings';

/**
 * `npm run start:stack` takes npm start's environment: each setting is passed on as the deployed
 * stack gets it, or named as ignored (a warning at start, a line in docs/start-stack.md).
 */
describe('the settings of npm start under start:stack', () => {
  it("ignores none of npm start's defaults", () => {
    expect(ignoredSettings(readLocalConfig({}))).toEqual([]);
  });

  it('passes on the settings the deployed stack has a place for, and ignores none of them', () => {
    const config = readLocalConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      SMTP_PORT: '0',
      DATA_DIR: 'somewhere',
      TEMPMAIL_DOMAINS: 'a.test,b.test',
      TEMPMAIL_ENV: 'dev',
      TEMPMAIL_MESSAGE_TTL_SECONDS: '60',
      TEMPMAIL_EMAIL_TTL_SECONDS: '3600',
      TEMPMAIL_CURSOR_SECRET: 'x'.repeat(32),
      LOG_LEVEL: 'info',
      OIDC_ISSUER: 'https://issuer.example.test',
      OIDC_CLIENT_ID: 'console',
    });
    expect(ignoredSettings(config)).toEqual([]);
  });

  it('names the short-window overrides with the variables that set them and why', () => {
    const config = readLocalConfig({ TEMPMAIL_SHORT_WINDOW_PER_ACCOUNT: '9000', TEMPMAIL_SUPPORT_CONTACT: 'billing@operator.example' });
    expect(ignoredSettings(config)).toEqual([
      { variables: ['TEMPMAIL_SHORT_WINDOW_PER_KEY', 'TEMPMAIL_SHORT_WINDOW_PER_ACCOUNT'], reason: expect.stringContaining("contract's short-window limits") },
    ]);
  });

  it('has each ignored variable named in docs/start-stack.md', () => {
    const doc = readFileSync(join(__dirname, '../../../../docs/start-stack.md'), 'utf8');
    const ignored = Object.values(stackSettings).flatMap((handling) => ('ignored' in handling ? handling.variables : []));
    expect(ignored.length).toBeGreaterThan(0);
    for (const variable of ignored) expect({ variable, named: doc.includes(`\`${variable}\``) }).toEqual({ variable, named: true });
  });
});
