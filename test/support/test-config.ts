import type { LocalConfig } from '../../local/config';

/** A local runner's configuration for a test: free loopback ports, in memory, quiet. */
export const testConfig: LocalConfig = {
  host: '127.0.0.1',
  port: 0,
  smtpPort: 0,
  dataDir: undefined,
  domains: ['tempmail.localhost'],
  env: 'local',
  messageTtlSeconds: 900,
  emailTtlSeconds: 2_592_000,
  cursorSecret: 'test-cursor-secret-0123456789abcdef',
  logLevel: 'silent',
  // Published in the console's config.json: on start:stack, by the synthesized stack (context `supportContact`).
  supportContact: 'support@operator.example',
};
