import type { Template } from '../../local/iam';
import { TempmailStack } from '../../lib/tempmail-stack';
import { testApp } from './test-app';

/** The stack name, account and Region the permission check resolves the template in. */
export const checkNaming = { account: '123456789012', region: 'us-east-1', stackName: 'Tempmail-test' };

/**
 * The stack's template as `cdk synth` makes it, without bundling the functions (their code is not
 * read; their roles, environments and entries are): a few seconds, not minutes.
 */
export function synthesizeTemplate(): Template {
  const app = testApp();
  const stack = new TempmailStack(app, checkNaming.stackName, {
    stage: 'test',
    domains: ['mail.example.test'],
    hostedZone: { zoneId: 'Z0000000EXAMPLE', zoneName: 'example.test' },
    alarmEmail: 'ops@example.test',
  });
  return app.synth().getStackArtifact(stack.artifactId).template as Template;
}
