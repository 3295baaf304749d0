import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const projectRoot = join(__dirname, '..', '..');

describe('the pinned CDK CLI', () => {
  it('synthesizes the app offline into a cloud assembly it can read (npm run synth)', () => {
    const out = mkdtempSync(join(tmpdir(), 'tempmail-cdk-out-'));
    try {
      const run = spawnSync('npx', ['cdk', 'synth', '--quiet', '--no-notices', '--output', out, '-c', 'stage=ci', '-c', 'domains=mail.example.test'], {
        cwd: projectRoot,
        encoding: 'utf8',
        env: { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true', CDK_DISABLE_CLI_TELEMETRY: 'true' },
      });
      expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ status: 0, stderr: '' });
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
      expect(Object.keys(manifest.artifacts)).toContain('Tempmail-ci');
      expect(existsSync(join(out, 'Tempmail-ci.template.json'))).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 180_000);

  it.each([
    ['a stage name the functions would refuse', ['-c', 'stage=Prod_1'], {}, /Invalid stage "Prod_1"/],
    ['a Region where SES does not receive mail', ['-c', 'stage=ci'], { AWS_REGION: 'us-west-1', AWS_DEFAULT_REGION: 'us-west-1' }, /SES does not receive mail in us-west-1/],
  ] as [string, string[], Record<string, string>, RegExp][])('fails synth on %s, saying why', (_name, args, env, message) => {
    const run = spawnSync('npx', ['cdk', 'synth', '--quiet', '--no-notices', '-c', 'domains=mail.example.test', ...args], {
      cwd: projectRoot,
      encoding: 'utf8',
      env: { ...process.env, ...env, CDK_DISABLE_VERSION_CHECK: 'true', CDK_DISABLE_CLI_TELEMETRY: 'true' },
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(message);
  }, 180_000);
});
