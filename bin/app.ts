import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { TempmailStack } from '../lib/tempmail-stack';

const app = new App();
const context = (name: string): string | undefined => {
  const value = app.node.tryGetContext(name);
  return value === undefined || value === '' ? undefined : String(value);
};
const stage = context('stage') ?? 'prod';
const zoneId = context('hostedZoneId');
const zoneName = context('hostedZoneName');
new TempmailStack(app, `Tempmail-${stage}`, {
  stage,
  domains: (context('domains') ?? '').split(',').map((domain) => domain.trim()).filter(Boolean),
  hostedZone: zoneId && zoneName ? { zoneId, zoneName } : undefined,
  alarmEmail: context('alarmEmail'),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
