import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumPath } from '../support/chromium';
import { realClockEnvironment } from '../support/real-clock';
import { readmeBlock } from '../support/readme';
import { runAdminCommand, spawnNpmStart, type SpawnedService } from '../support/spawn-service';

/**
 * What a user installs is what is tested: the client package is built and packed with `npm pack`,
 * the tarball is installed (offline) into a fresh project, and the README's first test and the
 * Playwright example of docs/end-to-end-testing.md run there against `npm start`: the SDK one with `node --test`, the Playwright-fixture
 * one with `npx playwright test` (Debian's Chromium; no browser download). `@playwright/test` and
 * nodemailer, the user's own dev dependencies, are linked from this project's node_modules.
 */
const projectRoot = join(__dirname, '..', '..');

let service: SpawnedService;
let work: string;
let app: string;
let env: Record<string, string>;

async function run(command: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}, options: { realClock?: boolean } = {}) {
  // The user's own shell: nothing of this Jest run (Playwright refuses to run under Jest's worker variables).
  const outside = Object.fromEntries(Object.entries(options.realClock ? realClockEnvironment() : process.env).filter(([name]) => !name.startsWith('JEST_')));
  const child = spawn(command, args, { cwd, env: { ...outside, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', ...env, ...extraEnv } });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const [code] = await once(child, 'exit');
  return { code: code as number, output };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tempmail-package-'));
  const dataDir = join(work, 'data');
  app = join(work, 'app');
  await mkdir(app);
  await mkdir(dataDir);
  env = {};

  const packed = await run('npm', ['pack', '--silent', '--pack-destination', work], join(projectRoot, 'client'));
  expect(packed.code).toBe(0);
  const tarball = (await readdir(work)).find((name) => name.endsWith('.tgz'))!;
  expect(tarball).toMatch(/^tempmail-client-\d+\.\d+\.\d+\.tgz$/);

  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'signup-e2e', private: true, version: '1.0.0' }));
  const installed = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, tarball)], app);
  expect(installed).toMatchObject({ code: 0 });
  for (const name of ['@playwright/test', 'playwright', 'playwright-core', 'nodemailer']) {
    await mkdir(join(app, 'node_modules', name, '..'), { recursive: true });
    await symlink(join(projectRoot, 'node_modules', name), join(app, 'node_modules', name), 'dir');
  }
  await symlink('../@playwright/test/cli.js', join(app, 'node_modules', '.bin', 'playwright'));

  await writeFile(join(app, 'signup.test.mjs'), readmeBlock('<!-- e2e-example: signup.test.mjs'));
  await writeFile(join(app, 'signup.spec.ts'), readmeBlock('<!-- e2e-example: signup.spec.ts', 'docs/end-to-end-testing.md'));
  await writeFile(join(app, 'playwright.config.ts'), readmeBlock('<!-- e2e-example: playwright.config.ts', 'docs/end-to-end-testing.md'));

  service = await spawnNpmStart({ DATA_DIR: dataDir });
  const account = await runAdminCommand(['account', 'create', '--plan', 'paid'], { DATA_DIR: dataDir });
  env = { TEMPMAIL_API_KEY: JSON.parse(account.stdout).api_key, TEMPMAIL_BASE_URL: service.apiUrl, SMTP_PORT: String(service.smtpPort) };
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await rm(work, { recursive: true, force: true });
});

describe('the packed client package, installed into a fresh project', () => {
  it('ships its built output, types and bin, and no runtime dependency', async () => {
    const manifest = JSON.parse(await readFile(join(app, 'node_modules', '@tempmail', 'client', 'package.json'), 'utf8'));
    expect(manifest.dependencies).toBeUndefined();
    const files = await readdir(join(app, 'node_modules', '@tempmail', 'client', 'dist'));
    expect(files).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'index.mjs', 'index.d.mts', 'playwright.js', 'playwright.d.ts', 'playwright.mjs', 'playwright.d.mts', 'cli.js']));
    expect(manifest.sideEffects).toBe(false);
    const usage = await run(join(app, 'node_modules', '.bin', 'tempmail'), ['usage', '--json'], app);
    expect(usage.code).toBe(0);
    expect(JSON.parse(usage.output)).toMatchObject({ plan: 'paid' });
  });

  it.each([
    [
      'an ES module',
      'smoke.mjs',
      `import { TempmailClient, TempmailError, isNotFound } from '@tempmail/client';
import { test } from '@tempmail/client/playwright';
import { createRequire } from 'node:module';
const required = createRequire(import.meta.url)('@tempmail/client');`,
    ],
    [
      'a CommonJS module',
      'smoke.cjs',
      `const { TempmailClient, TempmailError, isNotFound } = require('@tempmail/client');
const { test } = require('@tempmail/client/playwright');
const required = require('@tempmail/client');`,
    ],
  ])('loads as %s, with the one copy of each class, and answers through the service', async (_kind, file, imports) => {
    await writeFile(
      join(app, file),
      `${imports}
(async () => {
  const tempmail = new TempmailClient();
  const usage = await tempmail.getUsage();
  const missing = await tempmail.getEmail('eml_0000000000000000').catch((error) => error);
  process.stdout.write(JSON.stringify({ plan: usage.plan, notFound: isNotFound(missing), oneCopy: required.TempmailError === TempmailError && missing instanceof required.TempmailError, fixture: typeof test.extend }));
})();
`,
    );
    const result = await run(process.execPath, [file], app);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.output)).toEqual({ plan: 'paid', notFound: true, oneCopy: true, fixture: 'function' });
  });

  it("runs the README's SDK example with node --test", async () => {
    const result = await run(process.execPath, ['--test', 'signup.test.mjs'], app);
    expect(result.output).toMatch(/# pass 1\n# fail 0/);
    expect(result.code).toBe(0);
  }, 60_000);

  it("runs the Playwright-fixture example of docs/end-to-end-testing.md with npx playwright test", async () => {
    // The runner and its Chromium keep the real clock (Chromium crawls under libfaketime); the service's may be shifted.
    const result = await run('npx', ['playwright', 'test'], app, { CHROMIUM_PATH: chromiumPath }, { realClock: true });
    expect(result.output).toMatch(/1 passed/);
    expect(result.code).toBe(0);
  }, 90_000);
});
