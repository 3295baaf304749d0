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
const apiDomainName = context('apiDomainName');
const apiCertificateArn = context('apiCertificateArn');
const parserConcurrency = context('parserReservedConcurrency');
const ipRateLimit = context('ipRateLimit');
const mailSilence = context('mailSilenceMinutes');
const apiRate = context('apiRateLimit');
const apiBurst = context('apiBurstLimit');
const messageTtlSeconds = context('messageTtlSeconds');
const emailTtlSeconds = context('emailTtlSeconds');
new TempmailStack(app, `Tempmail-${stage}`, {
  stage,
  domains: (context('domains') ?? '').split(',').map((domain) => domain.trim()).filter(Boolean),
  hostedZone: zoneId && zoneName ? { zoneId, zoneName } : undefined,
  alarmEmail: context('alarmEmail'),
  receiptRuleSetName: context('receiptRuleSetName'),
  receiptRuleAfter: context('receiptRuleAfter'),
  mailSilenceMinutes: mailSilence === undefined ? undefined : Number(mailSilence),
  apiThrottle: { rate: apiRate === undefined ? undefined : Number(apiRate), burst: apiBurst === undefined ? undefined : Number(apiBurst) },
  webAclArn: context('webAclArn'),
  apiDomain: apiDomainName && apiCertificateArn ? { domainName: apiDomainName, certificateArn: apiCertificateArn } : undefined,
  consoleSenderDomain: context('consoleSenderDomain'),
  ipRateLimit: ipRateLimit === undefined ? undefined : Number(ipRateLimit),
  parserReservedConcurrency: parserConcurrency === undefined ? undefined : Number(parserConcurrency),
  lifetimes: {
    messageTtlSeconds: messageTtlSeconds === undefined ? undefined : Number(messageTtlSeconds),
    emailTtlSeconds: emailTtlSeconds === undefined ? undefined : Number(emailTtlSeconds),
  },
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
