import type { App } from 'aws-cdk-lib';
import type { TempmailStackProps } from './tempmail-stack';

/**
 * The stack's properties from the app's context (`-c name=value`, or `cdk.json`): what
 * `bin/app.ts` deploys, and what a test builds to check the very same stack. An empty value is
 * unset.
 */
export function stackPropsFromContext(app: App): TempmailStackProps {
  const context = (name: string): string | undefined => {
    const value = app.node.tryGetContext(name);
    return value === undefined || value === '' ? undefined : String(value);
  };
  const number = (name: string): number | undefined => {
    const value = context(name);
    return value === undefined ? undefined : Number(value);
  };
  const zoneId = context('hostedZoneId');
  const zoneName = context('hostedZoneName');
  const apiDomainName = context('apiDomainName');
  const apiCertificateArn = context('apiCertificateArn');
  return {
    stage: context('stage') ?? 'prod',
    domains: (context('domains') ?? '').split(',').map((domain) => domain.trim()).filter(Boolean),
    hostedZone: zoneId && zoneName ? { zoneId, zoneName } : undefined,
    alarmEmail: context('alarmEmail'),
    receiptRuleSetName: context('receiptRuleSetName'),
    receiptRuleAfter: context('receiptRuleAfter'),
    mailSilenceMinutes: number('mailSilenceMinutes'),
    apiThrottle: { rate: number('apiRateLimit'), burst: number('apiBurstLimit') },
    webAclArn: context('webAclArn'),
    apiDomain: apiDomainName && apiCertificateArn ? { domainName: apiDomainName, certificateArn: apiCertificateArn } : undefined,
    consoleSenderDomain: context('consoleSenderDomain'),
    supportContact: context('supportContact'),
    ipRateLimit: number('ipRateLimit'),
    parserReservedConcurrency: number('parserReservedConcurrency'),
    lifetimes: { messageTtlSeconds: number('messageTtlSeconds'), emailTtlSeconds: number('emailTtlSeconds') },
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  };
}
