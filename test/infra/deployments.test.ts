import { type App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks, NagPack } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { mailSilenceWindow } from '../../lib/monitoring';
import { TempmailStack, type TempmailStackProps } from '../../lib/tempmail-stack';
import { projectFeatureFlags, testApp } from '../support/test-app';
import { publishedSupportContact } from '../../local/stack/template';

type Resource = { Type: string; Properties: Record<string, any> };

/** Synthesizes stacks without bundling (the bundles are checked elsewhere), with cdk-nag on. */
function synthesize(stacks: Record<string, Partial<TempmailStackProps>>): Record<string, Template> {
  const app = testApp();
  const built = Object.entries(stacks).map(
    ([id, props]) =>
      new TempmailStack(app, id, {
        stage: 'prod',
        domains: ['mail.example.test'],
        env: { account: '123456789012', region: 'us-east-1' },
        ...props,
      }),
  );
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const assembly = app.synth();
  return Object.fromEntries(
    built.map((stack) => {
      const artifact = assembly.getStackArtifact(stack.artifactId);
      const template = Template.fromJSON(artifact.template);
      warnings.set(template, artifact.messages.filter((message) => message.level === 'warning').map((message) => String(message.entry.data)));
      return [stack.stackName, template];
    }),
  );
}

/** The warnings each synthesized template's stack gave at synth (`cdk synth` prints them). */
const warnings = new WeakMap<Template, string[]>();

const resources = (template: Template, type: string): Resource[] => Object.values(template.findResources(type)) as Resource[];

describe('stage names', () => {
  it.each(['Prod', 'prod_1', '', 'a-stage-name-longer-than-16'])('refuses %j at synth, as the functions would at every request', (stage) => {
    expect(() => synthesize({ Bad: { stage } })).toThrow(/Invalid stage .*\[a-z0-9-\]\{1,16\}/);
  });
});

describe('regions', () => {
  it.each(['us-west-1', 'ap-east-1', 'eu-south-1'])('refuses at synth %s, where SES sends but does not receive mail', (region) => {
    expect(() => synthesize({ Far: { env: { account: '123456789012', region } } })).toThrow(
      new RegExp(`SES does not receive mail in ${region}`),
    );
  });

  it('checks the Region at deploy time when the stack is synthesized without one', () => {
    const app = testApp();
    const stack = new TempmailStack(app, 'Agnostic', { stage: 'ci', domains: ['mail.example.test'] });
    const rules = Template.fromStack(stack).toJSON().Rules;
    expect(rules.ReceivingRegion.Assertions[0].Assert).toEqual({
      'Fn::Contains': [expect.arrayContaining(['us-east-1', 'eu-west-1']), { Ref: 'AWS::Region' }],
    });
  });
});

let twoStagesMemo: Record<string, Template> | undefined;
/**
 * A staging and a prod stage in one app, synthesized once for the suite: its prod stage is the
 * default deployment (no option given), which the domain seed's test reads as well.
 */
const twoStages = () =>
  (twoStagesMemo ??= synthesize({
    'Tempmail-staging': { stage: 'staging', domains: ['staging.example.test'] },
    'Tempmail-prod': { stage: 'prod', domains: ['mail.example.test'] },
  }));

describe('two stages in one Region', () => {
  let staging: Template;
  let prod: Template;
  beforeAll(() => {
    staging = twoStages()['Tempmail-staging']!;
    prod = twoStages()['Tempmail-prod']!;
  }, 120_000);

  it('each adds its own rule to the Region\'s one active rule set, which neither creates as its own', () => {
    for (const [template, stage, domain] of [
      [staging, 'staging', 'staging.example.test'],
      [prod, 'prod', 'mail.example.test'],
    ] as const) {
      expect(resources(template, 'AWS::SES::ReceiptRuleSet')).toEqual([]);
      const [rule] = resources(template, 'AWS::SES::ReceiptRule');
      expect(rule!.Properties.Rule.Name).toBe(`tempmail-${stage}`);
      expect(rule!.Properties.Rule.Recipients).toEqual([domain]);
      const [ruleSet] = Object.keys(template.findResources('Custom::ActiveReceiptRuleSet'));
      expect(rule!.Properties.RuleSetName).toEqual({ 'Fn::GetAtt': [ruleSet, 'RuleSetName'] });
    }
  });

  it('never deactivates a rule set, on update or on delete', () => {
    for (const template of [staging, prod]) {
      const calls = JSON.stringify(resources(template, 'Custom::AWS'));
      expect(calls).not.toContain('setActiveReceiptRuleSet');
      expect(calls).not.toContain('deleteReceiptRuleSet');
    }
  });

  it('adds the rule to a rule set the deployer names, without any rule-set resource', () => {
    const adopt = synthesize({ 'Tempmail-adopt': { stage: 'adopt', receiptRuleSetName: 'corporate-inbound' } })['Tempmail-adopt']!;
    expect(resources(adopt, 'Custom::ActiveReceiptRuleSet')).toEqual([]);
    expect(resources(adopt, 'AWS::SES::ReceiptRule')[0]!.Properties.RuleSetName).toBe('corporate-inbound');
  });
});

describe('deployer options', () => {
  let template: Template;
  beforeAll(() => {
    template = synthesize({
      'Tempmail-prod': {
        webAclArn: 'arn:aws:wafv2:us-east-1:123456789012:regional/webacl/tempmail/0000',
        apiDomain: { domainName: 'api.example.test', certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0000' },
        hostedZone: { zoneId: 'Z0000000EXAMPLE', zoneName: 'example.test' },
        parserReservedConcurrency: 20,
        consoleSenderDomain: 'mail.example.test',
        receiptRuleAfter: 'corporate-archive',
        mailSilenceMinutes: 30,
        apiThrottle: { rate: 20_000, burst: 10_000 },
      },
    })['Tempmail-prod']!;
  }, 120_000);

  it('needs no deploy-time Region rule once the Region was checked at synth', () => {
    expect(template.toJSON().Rules?.ReceivingRegion).toBeUndefined();
  });

  it('associates the deployer\'s web ACL with the API stage instead of its own', () => {
    expect(resources(template, 'AWS::WAFv2::WebACL')).toEqual([]);
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: 'arn:aws:wafv2:us-east-1:123456789012:regional/webacl/tempmail/0000',
    });
  });

  it('serves the API on the custom domain, aliased in the zone', () => {
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'api.example.test',
      RegionalCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0000',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    template.resourceCountIs('AWS::ApiGateway::BasePathMapping', 1);
    template.hasResourceProperties('AWS::Route53::RecordSet', { Name: 'api.example.test.', Type: 'A' });
  });

  it('points the MX record at the inbound endpoint of the stack\'s Region', () => {
    template.hasResourceProperties('AWS::Route53::RecordSet', {
      Name: 'mail.example.test.',
      Type: 'MX',
      ResourceRecords: ['10 inbound-smtp.us-east-1.amazonaws.com'],
    });
  });

  it('sends the console\'s sign-up mail through SES from the sender domain, not Cognito\'s capped default', () => {
    const [pool] = resources(template, 'AWS::Cognito::UserPool');
    expect(pool!.Properties.EmailConfiguration).toMatchObject({ EmailSendingAccount: 'DEVELOPER', From: 'tempmail <no-reply@mail.example.test>' });
    expect(JSON.stringify(pool!.Properties.EmailConfiguration.SourceArn)).toContain('identity/mail.example.test');
  });

  it('reserves the parser concurrency the operator asks for, once the account limit allows it', () => {
    const parser = resources(template, 'AWS::Lambda::Function').find((fn) => /Parses a received mail/.test(fn.Properties.Description));
    expect(parser!.Properties.ReservedConcurrentExecutions).toBe(20);
  });

  it('throttles the stage as the deployer asks', () => {
    const [stage] = resources(template, 'AWS::ApiGateway::Stage');
    expect(stage!.Properties.MethodSettings).toContainEqual(expect.objectContaining({ ThrottlingRateLimit: 20000, ThrottlingBurstLimit: 10000 }));
  });

  it('places the stage\'s rule after the rule the deployer names', () => {
    expect(resources(template, 'AWS::SES::ReceiptRule')[0]!.Properties.After).toBe('corporate-archive');
  });

  it('alarms after the silence the deployer chose, in one period when it is an hour or less', () => {
    const [silence] = resources(template, 'AWS::CloudWatch::Alarm').filter((alarm) => /No mail reached/.test(alarm.Properties.AlarmDescription));
    expect(silence!.Properties).toMatchObject({ Period: 1800, EvaluationPeriods: 1, DatapointsToAlarm: 1 });
  });

  it('says in an output and loudly at synth that nobody is notified when no alarm address is given', () => {
    const outputs = template.findOutputs('*');
    const notice = Object.entries(outputs).find(([id]) => id.includes('AlarmNotification'));
    expect(notice?.[1].Value).toMatch(/NOBODY is notified/);
    expect(warnings.get(template)).toEqual([expect.stringMatching(/^NOBODY is notified of this stage's alarms: no alarmEmail was given/)]);
  });

  it('still points every alarm at the stack\'s own topic, with nobody subscribed, for a subscription added later', () => {
    const [topicId, ...others] = Object.keys(template.findResources('AWS::SNS::Topic'));
    expect(others).toEqual([]);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    const alarms = resources(template, 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(20);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    expect(Object.values(template.findOutputs('*')).map((output) => output.Value)).toContainEqual({ Ref: topicId });
  });
});

describe('receiving domains', () => {
  const zone = { zoneId: 'Z0000000EXAMPLE', zoneName: 'example.test' };
  /** The logical ids of a domain's own resources: seed, identity, DKIM and MX records. */
  const idsOf = (template: Template, domain: string) =>
    Object.entries(template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>)
      .filter(([, resource]) => ['Custom::AWS', 'AWS::SES::EmailIdentity', 'AWS::Route53::RecordSet'].includes(resource.Type))
      .filter(([, resource]) => JSON.stringify(resource.Properties).includes(domain))
      .map(([logicalId]) => logicalId)
      .sort();

  it("keeps a domain's resources when another domain is reordered or removed, so no identity is created twice", () => {
    const templates = synthesize({
      'Tempmail-two': { stage: 'two', domains: ['mail.example.test', 'inbox.example.test'], hostedZone: zone },
      'Tempmail-swapped': { stage: 'swapped', domains: ['inbox.example.test', 'mail.example.test'], hostedZone: zone },
      'Tempmail-one': { stage: 'one', domains: ['inbox.example.test'], hostedZone: zone },
    });
    const kept = idsOf(templates['Tempmail-two']!, 'inbox.example.test');
    // The seed, the identity and the MX record name the domain; the DKIM records name the identity.
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(idsOf(templates['Tempmail-swapped']!, 'inbox.example.test')).toEqual(kept);
    expect(idsOf(templates['Tempmail-one']!, 'inbox.example.test')).toEqual(kept);
    expect(resources(templates['Tempmail-one']!, 'AWS::Route53::RecordSet').filter((record) => record.Properties.Type === 'CNAME')).toHaveLength(3);
  });

  it('seeds a domain on update as well as on create, never overwriting its row', () => {
    const template = twoStages()['Tempmail-prod']!;
    const [seed] = resources(template, 'Custom::AWS').filter((resource) => JSON.stringify(resource.Properties.Create).includes('putItem'));
    expect(seed!.Properties.Update).toEqual(seed!.Properties.Create);
    expect(JSON.stringify(seed!.Properties.Update)).toContain('attribute_not_exists(#domain)');
  });

  it('refuses a domain listed twice, in any spelling', () => {
    expect(() => synthesize({ 'Tempmail-prod': { domains: ['mail.example.test', 'mail.example.test'] } })).toThrow(/listed twice/);
    expect(() => synthesize({ 'Tempmail-prod': { domains: ['mail.example.test', 'Mail.Example.TEST.'] } })).toThrow(
      /The receiving domain mail\.example\.test is listed twice/,
    );
  });

  it('uses a domain given in capitals or with a trailing dot as the API compares it: lowercase, in the rule, the table and the functions', () => {
    const template = synthesize({ 'Tempmail-prod': { domains: ['Mail.Example.TEST.', 'inbox.example.test'], hostedZone: { ...zone, zoneName: 'Example.Test.' } } })['Tempmail-prod']!;
    const [rule] = resources(template, 'AWS::SES::ReceiptRule');
    expect(rule!.Properties.Rule.Recipients).toEqual(['mail.example.test', 'inbox.example.test']);
    const seeded = resources(template, 'Custom::AWS')
      .map((resource) => JSON.stringify(resource.Properties.Create))
      .filter((create) => create.includes('putItem'));
    expect(seeded).toEqual([expect.stringContaining('mail.example.test'), expect.stringContaining('inbox.example.test')]);
    expect(seeded.join()).not.toMatch(/Mail\.Example/);
    const environments = resources(template, 'AWS::Lambda::Function')
      .map((fn) => fn.Properties.Environment?.Variables?.RECEIPT_RULE_DOMAINS)
      .filter((value) => value !== undefined);
    expect(new Set(environments)).toEqual(new Set(['mail.example.test,inbox.example.test']));
    expect(resources(template, 'AWS::SES::EmailIdentity').map((identity) => identity.Properties.EmailIdentity)).toEqual(['mail.example.test', 'inbox.example.test']);
  });

  it.each(['mail example.test', 'mail@example.test', '-mail.example.test', 'localhost'])('refuses %j at synth: not a hostname SES could receive for', (domain) => {
    expect(() => synthesize({ 'Tempmail-prod': { domains: [domain] } })).toThrow(new RegExp(`Invalid receiving domain ${JSON.stringify(domain)}: a receiving domain is a hostname`));
  });

  it('refuses a stage without any receiving domain: a receipt rule without recipients takes the mail of every verified domain of the Region', () => {
    expect(() => synthesize({ 'Tempmail-prod': { domains: [] } })).toThrow(/No receiving domain: give at least one \(-c domains=/);
  });
});

describe('the support contact the console names', () => {
  it("is published in the console's config.json when the deployer gives it", () => {
    const app = testApp();
    const given = new TempmailStack(app, 'Given', { stage: 'given', domains: ['mail.example.test'], env: { account: '123456789012', region: 'us-east-1' }, supportContact: 'billing@operator.example' });
    const assembly = app.synth();
    expect(publishedSupportContact(assembly.getStackArtifact(given.artifactId).template, assembly.directory)).toBe('billing@operator.example');
  });

  it.each([' ', 'x'.repeat(201)])('refuses %j at synth: the console could not show it whole', (supportContact) => {
    expect(() => synthesize({ 'Tempmail-prod': { supportContact } })).toThrow(/Invalid supportContact: it (is empty|is longer than 200 characters)/);
  });
});

describe('the silence before the no-mail alarm', () => {
  it('is one period up to an hour, hourly periods up to a day, none at 0, and refused otherwise', () => {
    expect(mailSilenceWindow(15)).toMatchObject({ periods: 1 });
    expect(mailSilenceWindow(15)!.period.toMinutes()).toBe(15);
    expect(mailSilenceWindow(90)).toMatchObject({ periods: 2 });
    expect(mailSilenceWindow(90)!.period.toMinutes()).toBe(60);
    expect(mailSilenceWindow(1440)).toMatchObject({ periods: 24 });
    expect(mailSilenceWindow(0)).toBeUndefined();
    for (const wrong of [-1, 1.5, 1441, Number.NaN]) expect(() => mailSilenceWindow(wrong)).toThrow(/mailSilenceMinutes/);
  });
});

describe('cdk-nag acknowledgements', () => {
  /** Every acknowledgement declared in an app, as `construct path|rule id`. */
  function declared(app: App): Set<string> {
    const found = new Set<string>();
    for (const construct of app.node.findAll()) {
      for (const entry of construct.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY || !entry.data) continue;
        for (const id of Object.keys(entry.data)) found.add(`${construct.node.path}|${id.replace(/^annotation::/i, '')}`);
      }
    }
    return found;
  }

  it.each([
    ['the default deployment', { hostedZone: { zoneId: 'Z0000000EXAMPLE', zoneName: 'example.test' }, alarmEmail: 'ops@example.test' }],
    ['a deployment with every option', { webAclArn: 'arn:aws:wafv2:us-east-1:123456789012:regional/webacl/t/0', receiptRuleSetName: 'inbound' }],
  ] as [string, Partial<TempmailStackProps>][])('each acknowledgement of %s matches a finding it silences', (_name, props) => {
    const used = new Set<string>();
    // Record which declared acknowledgement silenced each finding, with cdk-nag's own lookup.
    const spy = jest.spyOn(NagPack.prototype as any, 'isAcknowledged').mockImplementation(function (resource: unknown, ruleId: unknown) {
      for (let current = resource as IConstruct | undefined; current; current = current.node.scope) {
        for (const entry of current.node.metadata) {
          if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY || !entry.data) continue;
          const ids = Object.keys(entry.data).map((id) => id.replace(/^annotation::/i, ''));
          if (ids.includes(ruleId as string)) {
            used.add(`${current.node.path}|${ruleId}`);
            return true;
          }
        }
      }
      return false;
    });
    try {
      const app = testApp();
      new TempmailStack(app, 'Acks', {
        stage: 'prod',
        domains: ['mail.example.test'],
        env: { account: '123456789012', region: 'us-east-1' },
        ...props,
      });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      app.synth();
      // CDK declares some acknowledgements itself (CloudFormation-Validate::…): only the project's own are checked.
      const own = [...declared(app)].filter((ack) => !ack.includes('|CloudFormation-Validate::'));
      expect(own.filter((ack) => !used.has(ack)).sort()).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  }, 120_000);
});

describe('feature flags', () => {
  it('sets in cdk.json every flag this aws-cdk-lib recommends, as it recommends, before any deployment', () => {
    // Some flags change logical ids or policies when turned on later: a deployed stack would then
    // replace resources. A newer aws-cdk-lib that recommends more fails here until cdk.json decides.
    expect(projectFeatureFlags).toEqual(expect.objectContaining(CURRENTLY_RECOMMENDED_FLAGS));
    expect(Object.keys(projectFeatureFlags).length).toBeGreaterThan(80);
  });
});
