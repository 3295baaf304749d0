import type { AnnouncedService } from '../local/endpoint-file';

/** Text a command prints as it is, not as JSON: `--format env`'s shell lines. */
export class ShellText {
  constructor(readonly text: string) {}
}

/**
 * `account create --format env`: shell lines that export the new key and, when the local service
 * runs on the data directory, its API address and SMTP port, so that one
 * `eval "$(npm run --silent admin -- account create --plan paid --format env)"` prepares a shell
 * for the clients and the README's first test.
 */
export function shellExports(apiKey: string, service: AnnouncedService | undefined, local: boolean): ShellText {
  const lines = [`export TEMPMAIL_API_KEY=${quoted(apiKey)}`];
  if (service) lines.push(`export TEMPMAIL_BASE_URL=${quoted(service.apiUrl)}`, `export SMTP_PORT=${service.smtpPort}`);
  else if (local) lines.push('# no local service runs on DATA_DIR: set TEMPMAIL_BASE_URL (and SMTP_PORT) yourself');
  else lines.push("# TEMPMAIL_BASE_URL: the stack's ApiUrl output");
  return new ShellText(`${lines.join('\n')}\n`);
}

function quoted(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
