import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureCloudAssembly } from '../../local/stack/cloud-assembly';
import { stackContext } from '../support/stack-context';

const projectRoot = join(__dirname, '..', '..');

describe('the pinned CDK CLI', () => {
  it('synthesizes the app offline into a cloud assembly it can read (cdk synth)', async () => {
    // The synthesis `npm run start:stack` and the stack-shape suite run from (`cdk synth` with the
    // pinned CLI, bundling every function): made once per change of the sources, shared by both suites.
    const out = await ensureCloudAssembly(stackContext, () => undefined);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(Object.keys(manifest.artifacts)).toContain(`Tempmail-${stackContext.stage}`);
    const template = JSON.parse(readFileSync(join(out, `Tempmail-${stackContext.stage}.template.json`), 'utf8'));
    type Resource = { Type: string; Metadata?: Record<string, unknown> };
    const functions = Object.values<Resource>(template.Resources).filter((resource) => resource.Type === 'AWS::Lambda::Function');
    // Every function of ours (the ones with an entry) runs a bundle in the assembly, made by this synthesis.
    const ours = functions.filter((resource) => resource.Metadata?.['tempmail:entry'] !== undefined);
    expect(ours.length).toBeGreaterThan(0);
    for (const { Metadata: metadata } of ours) {
      expect(metadata?.['aws:asset:is-bundled']).toBe(true);
      expect(existsSync(join(out, String(metadata?.['aws:asset:path']), 'index.js'))).toBe(true);
    }
  }, 600_000);

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
