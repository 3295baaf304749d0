import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { stackPropsFromContext } from '../../lib/app-props';
import { unsubscribedAlarmsWarning } from '../../lib/monitoring';
import { TempmailStack } from '../../lib/tempmail-stack';
import { ensureCloudAssembly } from '../../local/stack/cloud-assembly';
import { stackContext } from '../support/stack-context';
import { testApp } from '../support/test-app';

const projectRoot = join(__dirname, '..', '..');

describe('the pinned CDK CLI', () => {
  it('synthesizes the app offline into a cloud assembly it can read (cdk synth)', async () => {
    // The synthesis `npm run start:stack` and the stack-shape suite run from (`cdk synth` with the
    // pinned CLI, bundling every function): made once per change of the sources, shared by both suites.
    const out = await ensureCloudAssembly(stackContext, () => undefined);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(Object.keys(manifest.artifacts)).toContain(`Tempmail-${stackContext.stage}`);
    // CloudFormation's built-in template rules ran on this synthesis (the suites' own apps skip
    // them: test/support/test-app.ts) and found nothing; the project's flag would make a finding an
    // error. The report's one entry is the warning that nobody is subscribed to the alarms (this
    // context, like cdk.json, gives no alarm address).
    type Report = { pluginReports: { pluginName: string; conclusion: string; violations: { ruleName: string }[] }[] };
    const report = JSON.parse(readFileSync(join(out, 'validation-report.json'), 'utf8')) as Report;
    expect(report.pluginReports.flatMap((plugin) => plugin.violations.map((violation) => `${plugin.pluginName} (${plugin.conclusion}): ${violation.ruleName}`))).toEqual([
      `Construct Annotations (success): Annotation::${unsubscribedAlarmsWarning}`,
    ]);
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

  it('makes the template the suites check: the same resources, settings and policies as a test app', async () => {
    // The suites build the stack in an App of their own, which reads no cdk.json: unless it gets
    // the same feature flags and context-to-properties mapping, they check a template nobody deploys.
    const out = await ensureCloudAssembly(stackContext, () => undefined);
    const name = `Tempmail-${stackContext.stage}`;
    const deployed = JSON.parse(readFileSync(join(out, `${name}.template.json`), 'utf8'));
    const app = testApp(stackContext);
    const stack = new TempmailStack(app, name, { ...stackPropsFromContext(app), env: { region: 'us-east-1' } });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    const tested = app.synth().getStackArtifact(stack.artifactId).template;
    // Only what bundling decides differs: a function's code asset and the metadata naming it; the
    // CLI adds its own version report.
    type Resource = { Type: string; Properties?: Record<string, unknown>; Metadata?: unknown };
    const comparable = (resources: Record<string, Resource>) =>
      Object.fromEntries(
        Object.entries(resources)
          .filter(([, resource]) => resource.Type !== 'AWS::CDK::Metadata')
          .map(([id, resource]) => {
            if (resource.Type !== 'AWS::Lambda::Function') return [id, resource];
            const { Code: _code, ...properties } = resource.Properties ?? {};
            return [id, { ...resource, Properties: properties, Metadata: undefined }];
          }),
      );
    expect(comparable(tested.Resources)).toEqual(comparable(deployed.Resources));
    expect(tested.Outputs).toEqual(deployed.Outputs);
  }, 600_000);

  it.each([
    ['a stage name the functions would refuse', ['-c', 'stage=Prod_1'], {}, /Invalid stage "Prod_1"/],
    ['a Region where SES does not receive mail', ['-c', 'stage=ci'], { AWS_REGION: 'us-west-1', AWS_DEFAULT_REGION: 'us-west-1' }, /SES does not receive mail in us-west-1/],
  ] as [string, string[], Record<string, string>, RegExp][])('fails synth on %s, saying why', (_name, args, env, message) => {
    // The pinned CLI as `npx cdk` finds it (node_modules/.bin), without npm's start-up around it.
    const run = spawnSync(join(projectRoot, 'node_modules', '.bin', 'cdk'), ['synth', '--quiet', '--no-notices', '-c', 'domains=mail.example.test', ...args], {
      cwd: projectRoot,
      encoding: 'utf8',
      env: { ...process.env, ...env, CDK_DISABLE_VERSION_CHECK: 'true', CDK_DISABLE_CLI_TELEMETRY: 'true' },
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(message);
  }, 180_000);
});
