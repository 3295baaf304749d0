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
});
