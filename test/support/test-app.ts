import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';

/**
 * The feature flags of `cdk.json`: the CDK CLI gives them to `bin/app.ts`, but an `App` made in a
 * test reads no `cdk.json`, so without them a test would check a template that is never deployed.
 */
export const projectFeatureFlags: Record<string, unknown> = Object.fromEntries(
  Object.entries(
    (JSON.parse(readFileSync(join(__dirname, '..', '..', 'cdk.json'), 'utf8')) as { context: Record<string, unknown> })
      .context,
  ).filter(([name]) => name.startsWith('@aws-cdk')),
);

/**
 * An app as `cdk synth` makes it (the project's feature flags, construct paths and assets in the
 * metadata: API Gateway's deployment id depends on them), without bundling the functions and
 * without CloudFormation's built-in template validation. That validation changes nothing in the
 * template and costs about 10 seconds of every synthesis; the CLI's synthesis runs it, with the
 * project's flag making its findings errors, and the CDK CLI suite checks that its report is
 * clean and that the template it made is the one these apps make.
 */
export function testApp(context: Record<string, unknown> = {}): App {
  return new App({
    builtinCloudFormationValidation: false,
    context: {
      ...projectFeatureFlags,
      'aws:cdk:enable-path-metadata': true,
      'aws:cdk:enable-asset-metadata': true,
      'aws:cdk:bundling-stacks': [],
      ...context,
    },
  });
}
