import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readmeBlock } from '../support/readme';
import { runProcess } from '../support/run-process';
import { spawnStartCommand, type SpawnedService } from '../support/spawn-service';

/**
 * The HTTP API walk-through, taken from docs/http-api.md and run verbatim under
 * `bash -euo pipefail` against `npm start` (its command, without npm) on ports other than the
 * defaults, twice on the same data (a newcomer runs it again).
 */
const projectRoot = join(__dirname, '..', '..');

let service: SpawnedService;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tempmail-readme-'));
  service = await spawnStartCommand({ DATA_DIR: dataDir });
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

function walkThrough() {
  return runProcess('bash', ['-euo', 'pipefail', '-c', readmeBlock('<!-- walk-through', 'docs/http-api.md')], {
    cwd: projectRoot,
    // Only DATA_DIR, as a reader in another terminal has it: the walk-through learns the addresses from the service.
    env: { ...process.env, DATA_DIR: dataDir },
  });
}

describe('the HTTP API walk-through (docs/http-api.md)', () => {
  it('runs verbatim on non-default ports, each JSON answer on its own line, twice on the same data', async () => {
    expect(service.apiUrl).not.toMatch(/:3000$/);
    expect(service.smtpPort).not.toBe(2525);
    for (let run = 0; run < 2; run++) {
      const { code, stdout, stderr } = await walkThrough();
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });

      const answers = stdout.split('\n').filter((line) => line.startsWith('{'));
      const parsed = answers.map((line) => JSON.parse(line)); // two answers glued on one line would not parse
      expect(parsed).toHaveLength(9);
      expect(parsed[0].data).toMatchObject({ plan: 'paid', remaining_requests: 10_000 });
      expect(parsed[1].pagination).toEqual({ has_more: true, next_cursor: expect.any(String) });
      expect(parsed[2].data).toHaveLength(1);
      expect(parsed[2].data[0].domain).not.toBe(parsed[1].data[0].domain);
      expect(stdout).toMatch(/^idempotency-replayed: true\r?$/im);
      const message = parsed.find((answer) => answer.data?.text);
      expect(message.data).toMatchObject({ from: '"Shop" <shop@example.org>', subject: 'Your code is 493021' });
      expect(stdout).toContain('Subject: Your code is 493021');
      expect(parsed.at(-1).error.code).toBe('invalid_api_key');
    }
    // Each run starts the operator CLI twice (npm, then TypeScript compiled at start): seconds
    // apiece, many more when the machine's two cores run other suites too.
  }, 120_000);
});
