import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Stack, Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { routes } from '../../lambdas/api/routes';
import { tableDefinitions, tableEnvironmentName, tableKeys } from '../../lambdas/adapters/dynamodb/table-definitions';
import { TempmailStack } from '../../lib/tempmail-stack';
import { apiReferenceContentSecurityPolicy, apiReferenceFiles } from '../../openapi/reference/api-reference';
import { evaluate, loadFunctionRoles, TemplateResolver, type FunctionRole, type Template as IamTemplate } from '../../local/iam';
import { testApp } from '../support/test-app';
import { viewerAddressFunctionCode } from '../../lib/viewer-address';

let template: Template;
/** Where the synthesis staged its assets (the console bucket's files among them). */
let assemblyDirectory: string;
type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };

beforeAll(() => {
  const app = testApp();
  const stack = new TempmailStack(app, 'Test', {
    stage: 'test',
    domains: ['mail.example.test', 'inbox.example.test'],
    hostedZone: { zoneId: 'Z0000000EXAMPLE', zoneName: 'example.test' },
    alarmEmail: 'ops@example.test',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  // With the AwsSolutions pack registered, synthesis stops on any unacknowledged finding.
  const assembly = app.synth();
  template = Template.fromJSON(assembly.getStackArtifact(stack.artifactId).template);
  assemblyDirectory = assembly.directory;
}, 180_000);

const resources = (type: string): Resource[] => Object.values(template.findResources(type)) as Resource[];
const policies = () => resources('AWS::IAM::Policy');
const statementsOf = (policy: Resource): any[] => policy.Properties.PolicyDocument.Statement;
const policyOf = (functionLogicalIdPrefix: string) =>
  policies().filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref.startsWith(functionLogicalIdPrefix)));
describe('the stack, checked by cdk-nag (AwsSolutions)', () => {
  it('synthesizes with no unacknowledged finding', () => {
    expect(template.findResources('AWS::Lambda::Function')).not.toEqual({});
  });

  it('would stop synthesis on a finding nobody acknowledged', () => {
    // Without CloudFormation's built-in template validation, as the stack's own app above: the
    // finding that stops synthesis is cdk-nag's, and that validation alone took seven seconds here.
    const app = testApp();
    const stack = new Stack(app, 'Careless');
    new Bucket(stack, 'Open');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-S(1|10)/);
  });
});

describe('storage', () => {
  it('makes every table on demand, encrypted, TTL where defined', () => {
    const tables = resources('AWS::DynamoDB::GlobalTable');
    expect(tables).toHaveLength(tableKeys.length);
    for (const table of tables) {
      expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS' });
    }
    const withTtl = Object.values(tableDefinitions).filter((definition) => 'ttlAttribute' in definition).length;
    expect(tables.filter((table) => table.Properties.TimeToLiveSpecification?.Enabled === true)).toHaveLength(withTtl);
  });

  it('deletes private mail with the stack (messages table, mail bucket emptied first) and keeps every other table', () => {
    const deletion = Object.fromEntries(
      Object.entries(template.findResources('AWS::DynamoDB::GlobalTable')).map(([logicalId, table]) => [
        logicalId.match(/^Storage(\w+?)Table/)![1],
        table.DeletionPolicy,
      ]),
    );
    expect(deletion).toEqual({
      ...Object.fromEntries(tableKeys.map((key) => [key, 'Retain'])),
      messages: 'Delete',
    });
    const [bucketId, bucket] = Object.entries(template.findResources('AWS::S3::Bucket')).find(([id]) => id.startsWith('StorageMailBucket'))!;
    expect(bucket.DeletionPolicy).toBe('Delete');
    // CloudFormation cannot delete a bucket with objects in it: the CDK's custom resource empties it first.
    const emptying = resources('Custom::S3AutoDeleteObjects');
    expect(emptying.map((resource) => resource.Properties.BucketName)).toContainEqual({ Ref: bucketId });
    // The user pool (identities of the console) stays as well.
    for (const pool of Object.values(template.findResources('AWS::Cognito::UserPool'))) expect(pool.DeletionPolicy).toBe('Retain');
  });

  it('keeps point-in-time recovery for every table but the messages table, whose content expires in 15 minutes', () => {
    const recovery = Object.fromEntries(
      Object.entries(template.findResources('AWS::DynamoDB::GlobalTable')).map(([logicalId, table]) => [
        logicalId.match(/^Storage(\w+?)Table/)![1],
        table.Properties.Replicas[0].PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled,
      ]),
    );
    expect(recovery).toEqual({
      accounts: true,
      apiKeys: true,
      domains: true,
      emails: true,
      addresses: true,
      idempotency: true,
      identities: true,
      messages: false,
    });
  });

  it("projects into the messages indexes only what their reads need, from the definitions the local runtime uses too", () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      GlobalSecondaryIndexes: [
        {
          IndexName: 'by_email',
          Projection: {
            ProjectionType: 'INCLUDE',
            NonKeyAttributes: ['from', 'to', 'subject', 'received_at', 'expires_at', 'size_bytes', 'attachment_count'],
          },
          KeySchema: [
            { AttributeName: 'email_id', KeyType: 'HASH' },
            { AttributeName: 'received_sort', KeyType: 'RANGE' },
          ],
        },
        {
          IndexName: 'by_expiry',
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['mail_id', 'raw_key'] },
          KeySchema: [
            { AttributeName: 'expiry_hour', KeyType: 'HASH' },
            { AttributeName: 'expires_at', KeyType: 'RANGE' },
          ],
        },
      ],
    });
    const projections = resources('AWS::DynamoDB::GlobalTable')
      .flatMap((table) => table.Properties.GlobalSecondaryIndexes ?? [])
      .map((index: { Projection: { ProjectionType: string } }) => index.Projection.ProjectionType);
    expect(projections).not.toContain('ALL');
  });

  it('blocks all public access to the bucket, encrypts it, expires objects after a day', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 1, Status: 'Enabled' })] },
    });
  });

  it('denies every request to the bucket that is not over TLS', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('the API', () => {
  it('makes one method per route, each /v1 route behind the REQUEST authorizer with caching off', () => {
    const methods = resources('AWS::ApiGateway::Method');
    expect(methods).toHaveLength(routes.length);
    const keyed = routes.filter((route) => !('auth' in route)).length;
    expect(methods.filter((method) => method.Properties.AuthorizationType === 'CUSTOM')).toHaveLength(keyed);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: 'context.requestId',
    });
  });

  it('puts every console route behind the Cognito user pool authorizer, and no /v1 route', () => {
    const methods = resources('AWS::ApiGateway::Method');
    const cognito = methods.filter((method) => method.Properties.AuthorizationType === 'COGNITO_USER_POOLS');
    expect(cognito).toHaveLength(routes.filter((route) => 'auth' in route && route.auth === 'identity').length);
    expect(cognito.length).toBeGreaterThanOrEqual(5);
    const authorizers = template.findResources('AWS::ApiGateway::Authorizer', { Properties: { Type: 'COGNITO_USER_POOLS' } });
    expect(Object.keys(authorizers)).toHaveLength(1);
    const [authorizerId] = Object.keys(authorizers);
    for (const method of cognito) expect(method.Properties.AuthorizerId).toEqual({ Ref: authorizerId });
    expect(Object.values(authorizers)[0]).toMatchObject({
      Properties: { IdentitySource: 'method.request.header.Authorization', ProviderARNs: [{ 'Fn::GetAtt': [expect.stringMatching(/^ConsoleIdentityUserPool/), 'Arn'] }] },
    });
  });

  it('streams the file routes (no 6 MB cap on a buffered response) and buffers the rest', () => {
    const methods = resources('AWS::ApiGateway::Method');
    const streamed = methods.filter((method) => method.Properties.Integration.ResponseTransferMode === 'STREAM');
    expect(streamed).toHaveLength(routes.filter((route) => 'stream' in route && route.stream).length);
    expect(streamed).toHaveLength(2);
    for (const method of streamed) {
      expect(JSON.stringify(method.Properties.Integration.Uri)).toContain('/response-streaming-invocations');
      expect(method.Properties.Integration.TimeoutInMillis).toBe(120_000);
    }
  });

  it("answers the gateway's own failures in the contract's error shape", () => {
    const responses = resources('AWS::ApiGateway::GatewayResponse');
    const byType = new Map(responses.map((response) => [response.Properties.ResponseType, response.Properties]));
    for (const [type, status, code] of [
      ['MISSING_AUTHENTICATION_TOKEN', '404', 'resource_not_found'],
      ['UNAUTHORIZED', '401', 'invalid_api_key'],
      ['ACCESS_DENIED', '403', 'forbidden'],
      ['REQUEST_TOO_LARGE', '413', 'payload_too_large'],
      ['THROTTLED', '429', 'rate_limit_exceeded'],
      ['DEFAULT_5XX', '500', 'internal_error'],
      ['INTEGRATION_TIMEOUT', '503', 'service_unavailable'],
    ]) {
      const response = byType.get(type);
      expect(response?.StatusCode).toBe(status);
      const body = JSON.parse(response!.ResponseTemplates['application/json']);
      // A 429 names its limit, as every 429 of the service does.
      const details = status === '429' ? { details: [{ reason: 'gateway_throttle' }] } : {};
      expect(body).toEqual({ error: { code, message: expect.any(String), request_id: 'req_$context.requestId', ...details } });
      expect(response!.ResponseParameters['gatewayresponse.header.Cache-Control']).toBe("'private, no-store'");
    }
    expect(byType.get('THROTTLED')!.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'1'");
  });

  it('throttles the stage at 5,000 requests a second by default, the per-stack target of docs/limits.md', () => {
    const [stage] = resources('AWS::ApiGateway::Stage');
    expect(stage!.Properties.MethodSettings).toContainEqual(
      expect.objectContaining({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 5000, ThrottlingBurstLimit: 5000 }),
    );
  });

  it('logs access without bodies or query strings', () => {
    const stage = resources('AWS::ApiGateway::Stage')[0]!;
    const format: string = stage.Properties.AccessLogSetting.Format;
    expect(format).toContain('$context.resourcePath');
    for (const leak of ['$context.path', 'requestOverride', '$input', 'querystring']) expect(format).not.toContain(leak);
    expect(stage.Properties.MethodSettings ?? []).not.toContainEqual(expect.objectContaining({ DataTraceEnabled: true }));
  });

  it("logs the client behind the console's distribution as the key authorizer judged it, with the distribution's own proof", () => {
    const stage = resources('AWS::ApiGateway::Stage')[0]!;
    const format = JSON.parse(stage.Properties.AccessLogSetting.Format);
    // `ip` stays the connection (a CloudFront edge server's through the distribution); `clientIp` is the viewer's only with the proof.
    expect(format).toMatchObject({ ip: '$context.identity.sourceIp', clientIp: '$context.authorizer.client_ip' });
    const withValue = resources('AWS::Lambda::Function').filter((fn) => fn.Properties.Environment?.Variables?.TEMPMAIL_ORIGIN_VERIFY !== undefined);
    expect(withValue.map((fn) => fn.Properties.Description)).toEqual([expect.stringMatching(/^Checks the API key/)]);
    const [distribution] = resources('AWS::CloudFront::Distribution');
    const apiOrigin = distribution!.Properties.DistributionConfig.Origins.find((origin: any) => origin.OriginPath === '/test');
    const proof = apiOrigin.OriginCustomHeaders.find((header: any) => header.HeaderName === 'x-tempmail-origin-verify');
    expect(withValue[0]!.Properties.Environment.Variables.TEMPMAIL_ORIGIN_VERIFY).toEqual(proof.HeaderValue);
    expect(JSON.stringify(proof.HeaderValue)).toContain('AWS::StackId');
  });

  it('logs which account a request charged and whether the gateway answered it itself', () => {
    const stage = resources('AWS::ApiGateway::Stage')[0]!;
    const format = JSON.parse(stage.Properties.AccessLogSetting.Format);
    expect(format).toMatchObject({
      accountId: '$context.authorizer.account_id',
      charged: '$context.authorizer.charged',
      gatewayError: '$context.error.responseType',
      status: '$context.status',
    });
  });
});

describe('functions', () => {
  it('runs every function on Node.js 22, arm64, bound to the stage, with every table name', () => {
    const functions = resources('AWS::Lambda::Function').filter((fn) => fn.Properties.Environment?.Variables?.TEMPMAIL_ENV);
    expect(functions).toHaveLength(routes.length + 4);
    for (const fn of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.Environment.Variables.TEMPMAIL_ENV).toBe('test');
      for (const key of tableKeys) expect(fn.Properties.Environment.Variables).toHaveProperty(tableEnvironmentName(key));
    }
  });

  it('starts no function with --enable-source-maps, which parses the bundle\'s source map at every cold start', () => {
    const functions = resources('AWS::Lambda::Function').filter((fn) => fn.Properties.Environment?.Variables?.TEMPMAIL_ENV);
    expect(functions).toHaveLength(routes.length + 4);
    for (const fn of functions) expect(String(fn.Properties.Environment.Variables.NODE_OPTIONS ?? '')).not.toContain('--enable-source-maps');
  });

  it('keeps the logs of every function 30 days, the CDK framework functions (custom resources, bucket deployment) included', () => {
    const functions = resources('AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(routes.length + 4);
    const groups = template.findResources('AWS::Logs::LogGroup');
    for (const fn of functions) {
      const group = fn.Properties.LoggingConfig?.LogGroup?.Ref;
      expect([fn.Properties.Description ?? fn.Properties.Handler, groups[group]?.Properties.RetentionInDays]).toEqual([
        fn.Properties.Description ?? fn.Properties.Handler,
        30,
      ]);
    }
    template.resourceCountIs('Custom::LogRetention', 0);
  });

  it('puts the cursor secret in no environment: the functions that sign cursors read it from Secrets Manager', () => {
    for (const fn of resources('AWS::Lambda::Function')) expect(fn.Properties.Environment?.Variables ?? {}).not.toHaveProperty('CURSOR_SECRET');
  });

  it('reserves no concurrency by default, so a new account with a concurrency limit of 10 deploys', () => {
    const parser = resources('AWS::Lambda::Function').find((fn) => /Parses a received mail/.test(fn.Properties.Description));
    expect(parser!.Properties).not.toHaveProperty('ReservedConcurrentExecutions');
    expect(resources('AWS::Lambda::Function').filter((fn) => fn.Properties.ReservedConcurrentExecutions !== undefined)).toEqual([]);
  });

  it('drops a parser event queued longer than a mail lives (15 minutes), after two retries', () => {
    const parser = Object.entries(template.findResources('AWS::Lambda::Function')).find(([, fn]) =>
      /Parses a received mail/.test((fn as Resource).Properties.Description),
    )![0];
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: parser },
      MaximumEventAgeInSeconds: 900,
      MaximumRetryAttempts: 2,
    });
  });

  it('grants no data-plane action on a "*" resource', () => {
    for (const policy of policies()) {
      for (const statement of statementsOf(policy)) {
        const actions: string[] = [statement.Action].flat();
        const dataPlane = actions.some((action) => /^(dynamodb|s3|sqs|secretsmanager):/.test(action));
        if (dataPlane) expect([statement.Resource].flat()).not.toContain('*');
      }
    }
  });

  it('gives inbound/ (raw mail stored by SES) only to the raw source route, the parser and the sweeper', () => {
    const readsInbound = (prefix: string) =>
      policyOf(prefix)
        .flatMap(statementsOf)
        .some((statement) => JSON.stringify(statement.Resource).includes('/inbound/*'));
    expect(readsInbound('ApigetMessageSourceFunction')).toBe(true);
    expect(readsInbound('ApigetMessageFunction')).toBe(false);
    expect(readsInbound('ApigetAttachmentFunction')).toBe(false);
    expect(readsInbound('InboundMailParser')).toBe(true);
    expect(readsInbound('SweeperFunction')).toBe(true);
  });

  it('lets every function that reads a blob list that key too, so S3 answers a missing blob 404 NoSuchKey, not 403', async () => {
    const naming = { account: '123456789012', region: 'eu-west-1', stackName: 'Test' };
    const bucketId = Object.keys(template.findResources('AWS::S3::Bucket')).find((id) => id.startsWith('StorageMailBucket'))!;
    const bucketArn = new TemplateResolver(template.toJSON() as IamTemplate, naming).arnOf(bucketId);
    const decide = (role: FunctionRole, action: string, resource: string, context: Record<string, string> = {}) =>
      evaluate(role, { action, resource, context }).then((decision) => decision.result);
    let readers = 0;
    for (const role of loadFunctionRoles(template.toJSON() as IamTemplate, naming).values()) {
      for (const key of ['mail/m_1/text', 'inbound/ses-1']) {
        if ((await decide(role, 's3:GetObject', `${bucketArn}/${key}`)) !== 'allowed') continue;
        readers += 1;
        expect([role.functionLogicalId, key, await decide(role, 's3:ListBucket', bucketArn, { 's3:prefix': key })]).toEqual([
          role.functionLogicalId,
          key,
          'allowed',
        ]);
      }
    }
    // The message, attachment and source routes read mail/, the source route and the parser inbound/.
    expect(readers).toBe(5);
  });

  it('lets only the sweeper delete items (messages, 25 a batch write), and only the two domain routes scan (domains)', async () => {
    const naming = { account: '123456789012', region: 'eu-west-1', stackName: 'Test' };
    const resolver = new TemplateResolver(template.toJSON() as IamTemplate, naming);
    const tableArns = Object.keys(template.findResources('AWS::DynamoDB::GlobalTable')).map((id) => [id.match(/^Storage(\w+?)Table/)![1]!, resolver.arnOf(id)] as const);
    const allowed: Record<string, string[]> = {};
    for (const role of loadFunctionRoles(template.toJSON() as IamTemplate, naming).values()) {
      if (!role.entry) continue;
      for (const [table, arn] of tableArns) {
        for (const action of ['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:Scan']) {
          if ((await evaluate(role, { action, resource: arn, context: {} })).result !== 'allowed') continue;
          (allowed[`${action} ${table}`] ??= []).push(role.entry);
        }
      }
    }
    // BatchWriteItem puts as well as deletes: only the sweeper, which sends deletes alone, holds it.
    expect(allowed).toEqual({
      'dynamodb:BatchWriteItem messages': ['lambdas/inbound/sweeper.ts'],
      'dynamodb:Scan domains': expect.arrayContaining(['lambdas/api/handlers/list-domains.ts', 'lambdas/api/handlers/create-email.ts']),
    });
    expect(allowed['dynamodb:Scan domains']).toHaveLength(2);
  });

  it('gives the parser a dead-letter queue and retries', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { MaximumRetryAttempts: 2 });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('Parses a received mail'),
      DeadLetterConfig: { TargetArn: Match.anyValue() },
    });
  });
});

describe('inbound mail', () => {
  it('filters recipients (and failed virus scans) first, stores the raw message, then parses it, for the configured domains', () => {
    const rule = resources('AWS::SES::ReceiptRule')[0]!;
    expect(rule.Properties.Rule.Recipients).toEqual(['mail.example.test', 'inbox.example.test']);
    expect(rule.Properties.Rule.ScanEnabled).toBe(true);
    const actions = rule.Properties.Rule.Actions as Record<string, any>[];
    expect(actions.map((action) => Object.keys(action)[0])).toEqual(['LambdaAction', 'S3Action', 'LambdaAction', 'StopAction']);
    expect(actions[0]!.LambdaAction.InvocationType).toBe('RequestResponse');
    expect(actions[1]!.S3Action.ObjectKeyPrefix).toBe('inbound/');
    expect(actions[2]!.LambdaAction.InvocationType).toBe('Event');
  });

  it("ends the rule with a stop, so no later rule of a shared set (another application's catch-all) stores the mail, and puts it first", () => {
    const rule = resources('AWS::SES::ReceiptRule')[0]!;
    expect(rule.Properties.Rule.Actions.at(-1)).toEqual({ StopAction: { Scope: 'RuleSet' } });
    // CloudFormation puts a rule without After at the head of the set: before any rule that could store this mail.
    expect(rule.Properties.After).toBeUndefined();
  });

  it('alarms when no mail has reached the rule for a day, counting a day without any as silence', () => {
    const [silence] = resources('AWS::CloudWatch::Alarm').filter((alarm) => /No mail reached/.test(alarm.Properties.AlarmDescription));
    expect(silence!.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Statistic: 'Sum',
      Period: 3600,
      EvaluationPeriods: 24,
      DatapointsToAlarm: 24,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    const filter = Object.keys(template.findResources('AWS::Lambda::Function')).find((id) => id.startsWith('InboundMailRecipientFilter'));
    expect(silence!.Properties.Dimensions).toEqual([{ Name: 'FunctionName', Value: { Ref: filter } }]);
  });

  it("lets SES write raw mail only from this stage's rule (aws:SourceArn) and this account", () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'ses.amazonaws.com' },
            Action: 's3:PutObject',
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: {
                'aws:SourceArn': {
                  'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp(':receipt-rule-set/\\*:receipt-rule/tempmail-test$')])],
                },
              },
            },
          }),
        ]),
      },
    });
  });

  it("lets SES invoke the filter and the parser only from this stage's rule of this account", () => {
    const fromSes = resources('AWS::Lambda::Permission').filter((permission) => permission.Properties.Principal === 'ses.amazonaws.com');
    expect(fromSes).toHaveLength(2);
    for (const permission of fromSes) {
      expect(permission.Properties.SourceAccount).toEqual({ Ref: 'AWS::AccountId' });
      expect(JSON.stringify(permission.Properties.SourceArn)).toMatch(/:receipt-rule\/tempmail-test"/);
      expect(JSON.stringify(permission.Properties.SourceArn)).toContain(':receipt-rule-set/');
    }
  });

  it("keeps dead-lettered SES events (their header fields) no longer than the mail's 15 minutes", () => {
    const queues = resources('AWS::SQS::Queue');
    expect(queues).toHaveLength(1);
    expect(queues[0]!.Properties.MessageRetentionPeriod).toBeLessThanOrEqual(900);
  });

  it('seeds the domains table with each domain, never overwriting an existing row', () => {
    const seeds = resources('Custom::AWS').filter((resource) => JSON.stringify(resource.Properties.Create).includes('putItem'));
    expect(seeds).toHaveLength(2);
    const call = JSON.parse(JSON.stringify(seeds[0]!.Properties.Create['Fn::Join'][1]).replace(/\{[^{}]*"Ref"[^{}]*\}/g, '"TABLE"'));
    expect(call.join('')).toContain('"ConditionExpression":"attribute_not_exists(#domain)"');
    expect(call.join('')).toContain('"Item":{"domain":{"S":"mail.example.test"},"create_enabled":{"BOOL":true},"receive_enabled":{"BOOL":true}}');
  });

  it('creates each domain identity with its DKIM records and the MX record when a zone is given', () => {
    template.resourceCountIs('AWS::SES::EmailIdentity', 2);
    template.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'mail.example.test' });
    const records = resources('AWS::Route53::RecordSet');
    expect(records.filter((record) => record.Properties.Type === 'CNAME')).toHaveLength(6);
    const mx = records.filter((record) => record.Properties.Type === 'MX');
    expect(mx.map((record) => record.Properties.Name)).toEqual(['mail.example.test.', 'inbox.example.test.']);
  });

  it('sweeps every minute', () => {
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
  });

  it('never retries a sweep beside the schedule: no Lambda retry, a queued run dropped within 2 minutes', () => {
    const sweeper = Object.keys(template.findResources('AWS::Lambda::Function')).find((id) => id.startsWith('SweeperFunction'));
    const configs = resources('AWS::Lambda::EventInvokeConfig').filter((config) => config.Properties.FunctionName.Ref === sweeper);
    expect(configs).toHaveLength(1);
    expect(configs[0]!.Properties.MaximumRetryAttempts).toBe(0);
    expect(configs[0]!.Properties.MaximumEventAgeInSeconds).toBeLessThanOrEqual(120);
  });
});

describe('monitoring', () => {
  it('alarms on the 5xx rate, every failing function, throttles, DynamoDB faults and dead letters, mailed to the operator', () => {
    const alarms = Object.keys(template.findResources('AWS::CloudWatch::Alarm')).map((id) => id.replace(/^Monitoring|[0-9A-F]{8}$/g, ''));
    expect(alarms).toEqual(
      expect.arrayContaining([
        'ServerErrorRate',
        'ConsoleServerErrorRate',
        'ClaimedConcurrency',
        'AuthorizerErrors',
        'RecipientFilterErrors',
        'ParserErrors',
        'SweeperErrors',
        'SweepBacklog',
        'DeadLetters',
        'LambdaThrottles1',
        'LambdaThrottles2',
        ...tableKeys.map((key) => `Table${key}Faults`),
      ]),
    );
    for (const alarm of resources('AWS::CloudWatch::Alarm')) expect(alarm.Properties.AlarmActions).toHaveLength(1);
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.test' });
  });

  it('alarms when expired mail has waited 10 minutes for the sweeper for 5 minutes in a row, or the sweeper stops reporting', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Tempmail',
      MetricName: 'OldestUnsweptSeconds',
      Dimensions: [{ Name: 'Stage', Value: 'test' }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 600,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 5,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [Match.anyValue()],
    });
    // The sweeper's function reports the metric for that same stage.
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Deletes expired messages and their blobs',
      Environment: { Variables: Match.objectLike({ TEMPMAIL_ENV: 'test' }) },
    });
  });

  it('gives every function of the service an error alarm of its own', () => {
    const functions = Object.entries(template.findResources('AWS::Lambda::Function'))
      .filter(([, fn]) => fn.Properties.Environment?.Variables?.TEMPMAIL_ENV)
      .map(([logicalId]) => logicalId);
    expect(functions).toHaveLength(routes.length + 4);
    const watched = resources('AWS::CloudWatch::Alarm')
      .filter((alarm) => alarm.Properties.MetricName === 'Errors' && alarm.Properties.Namespace === 'AWS/Lambda')
      .map((alarm) => alarm.Properties.Dimensions[0].Value.Ref);
    expect(watched.sort()).toEqual(functions.sort());
  });

  it('alarms on a 5xx rate only once at least five requests failed, so one failure at low traffic wakes nobody', () => {
    const rates = resources('AWS::CloudWatch::Alarm').filter((alarm) => /requests answered 5xx/.test(alarm.Properties.AlarmDescription));
    expect(rates).toHaveLength(2);
    for (const alarm of rates) {
      const expression = alarm.Properties.Metrics.find((query: any) => query.Expression).Expression;
      expect(expression).toBe('IF(errors >= 5, 100 * errors / requests, 0)');
      expect(alarm.Properties.Threshold).toBe(1);
    }
  });

  it("counts the console's requests and 5xx apart, from the stage's access log, so /v1 traffic cannot hide a failing console", () => {
    const format = JSON.parse(resources('AWS::ApiGateway::Stage')[0]!.Properties.AccessLogSetting.Format);
    expect(format).toMatchObject({ resource: '$context.resourcePath', status: '$context.status', stage: '$context.stage' });
    const filters = resources('AWS::Logs::MetricFilter').map((filter) => [filter.Properties.MetricTransformations[0].MetricName, filter.Properties.FilterPattern]);
    expect(Object.fromEntries(filters)).toEqual({
      ConsoleRequests: '{ $.resource = "/console/*" }',
      ConsoleServerErrors: '{ ($.resource = "/console/*") && ($.status = "5*") }',
    });
    expect(routes.filter((route) => 'auth' in route).every((route) => route.path.startsWith('/console/'))).toBe(true);
    const consoleRate = resources('AWS::CloudWatch::Alarm').find((alarm) => /console API/.test(alarm.Properties.AlarmDescription))!;
    const counted = consoleRate.Properties.Metrics.filter((query: any) => query.MetricStat).map((query: any) => query.MetricStat.Metric);
    expect(counted.map((metric: any) => [metric.MetricName, metric.Dimensions])).toEqual([
      ['ConsoleRequests', [{ Name: 'Stage', Value: 'test' }]],
      ['ConsoleServerErrors', [{ Name: 'Stage', Value: 'test' }]],
    ]);
  });

  it('alarms on throttles of every secondary index, each table apart', () => {
    const indexes = resources('AWS::CloudWatch::Alarm')
      .flatMap((alarm) => alarm.Properties.Metrics ?? [])
      .flatMap((query: any) => query.MetricStat?.Metric.Dimensions ?? [])
      .filter((dimension: { Name: string }) => dimension.Name === 'GlobalSecondaryIndexName')
      .map((dimension: { Value: string }) => dimension.Value);
    const defined = Object.values(tableDefinitions).flatMap((definition) => ('indexes' in definition ? definition.indexes.map((index) => index.name) : []));
    // A read and a write throttle metric per index.
    expect(indexes.sort()).toEqual([...defined, ...defined].sort());
  });

  it("alarms when the account's functions claim more than 80% of its Lambda concurrency limit", () => {
    const alarm = resources('AWS::CloudWatch::Alarm').find((candidate) => /concurrency limit/.test(candidate.Properties.AlarmDescription))!;
    expect(alarm.Properties.Threshold).toBe(80);
    const queries = alarm.Properties.Metrics as any[];
    expect(queries.find((query) => query.Expression).Expression).toBe('100 * claimed / SERVICE_QUOTA(usage)');
    expect(queries.find((query) => query.Id === 'claimed').MetricStat.Metric).toEqual({ Namespace: 'AWS/Lambda', MetricName: 'ClaimedAccountConcurrency' });
    expect(queries.find((query) => query.Id === 'usage').MetricStat.Metric.Namespace).toBe('AWS/Usage');
  });

  it('counts the throttles of every function of the service', () => {
    const throttled = resources('AWS::CloudWatch::Alarm')
      .flatMap((alarm) => alarm.Properties.Metrics ?? [])
      .filter((query: any) => query.MetricStat?.Metric.MetricName === 'Throttles');
    expect(throttled).toHaveLength(routes.length + 4);
  });
});

describe('the API endpoint', () => {
  it('is REGIONAL', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
  });
});

describe('monitoring of mail kept in part', () => {
  it('alarms on a mail kept in part (past the MIME limits), counted by the parser as the MailTruncated metric', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Tempmail',
      MetricName: 'MailTruncated',
      Dimensions: [{ Name: 'Stage', Value: 'test' }],
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [Match.anyValue()],
    });
  });
});

describe('tags', () => {
  /** A resource's tags, wherever its type keeps them. */
  const tagsOf = (resource: Resource): Record<string, string> | undefined => {
    const properties = resource.Properties ?? {};
    const list = (properties.Tags ?? properties.Replicas?.[0]?.Tags) as { Key: string; Value: string }[] | undefined;
    return list ? Object.fromEntries(list.map((tag) => [tag.Key, tag.Value])) : properties.UserPoolTags;
  };
  const taggable = [
    'AWS::DynamoDB::GlobalTable', 'AWS::S3::Bucket', 'AWS::Lambda::Function', 'AWS::IAM::Role', 'AWS::Logs::LogGroup',
    'AWS::SQS::Queue', 'AWS::SNS::Topic', 'AWS::CloudWatch::Alarm', 'AWS::ApiGateway::RestApi', 'AWS::ApiGateway::Stage',
    'AWS::CloudFront::Distribution', 'AWS::WAFv2::WebACL', 'AWS::Cognito::UserPool', 'AWS::SecretsManager::Secret', 'AWS::Events::Rule',
  ];

  it('names the service and the stage on every resource that takes tags, the CDK framework functions included', () => {
    const untagged = taggable.flatMap((type) =>
      Object.entries(template.findResources(type))
        .filter(([, resource]) => !(tagsOf(resource as Resource)?.service === 'tempmail' && tagsOf(resource as Resource)?.stage === 'test'))
        .map(([id]) => `${type} ${id}`),
    );
    expect(untagged).toEqual([]);
  });

  it('tags exactly the stores of private mail for exclusion from AWS Backup, as the deploy guide names it', () => {
    const excluded = Object.entries(template.toJSON().Resources as Record<string, Resource>)
      .filter(([, resource]) => tagsOf(resource)?.backup === 'exclude')
      .map(([id, resource]) => `${resource.Type} ${id.replace(/[0-9A-F]{8}$/, '')}`);
    expect(excluded.sort()).toEqual(['AWS::DynamoDB::GlobalTable StoragemessagesTable', 'AWS::S3::Bucket StorageMailBucket']);
    expect(readFileSync(join(__dirname, '..', '..', 'docs', 'deploying-to-aws.md'), 'utf8')).toContain('`aws:ResourceTag/backup` = `exclude`');
  });
});

describe("the service's own metrics", () => {
  it('are all counted and alarmed per stage, so two stages of one account never share an alarm', () => {
    const ownMetrics = (alarm: Resource): { Namespace?: string; Dimensions?: unknown }[] =>
      alarm.Properties.Metrics ? alarm.Properties.Metrics.filter((query: any) => query.MetricStat).map((query: any) => query.MetricStat.Metric) : [alarm.Properties];
    const ours = resources('AWS::CloudWatch::Alarm').flatMap(ownMetrics).filter((metric) => metric.Namespace === 'Tempmail');
    expect(ours.length).toBeGreaterThanOrEqual(4);
    for (const metric of ours) expect(metric.Dimensions).toEqual([{ Name: 'Stage', Value: 'test' }]);
    for (const filter of resources('AWS::Logs::MetricFilter')) {
      expect(filter.Properties.MetricTransformations[0].Dimensions).toEqual([{ Key: 'Stage', Value: '$.stage' }]);
    }
  });
});

describe('the console distribution', () => {
  it('writes no standard logs, whose legacy form records every query string', () => {
    const [distribution, ...others] = resources('AWS::CloudFront::Distribution');
    expect(others).toEqual([]);
    expect(distribution!.Properties.DistributionConfig.Logging).toBeUndefined();
    // Nor a v2 delivery that would carry the query string field.
    expect(JSON.stringify(template.toJSON())).not.toContain('cs-uri-query');
  });
});

describe('the console', () => {
  it('signs customers up and in with a Cognito user pool: self sign-up, email verified by Cognito, managed login', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
      AutoVerifiedAttributes: ['email'],
      UsernameAttributes: ['email'],
      Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 12, RequireSymbols: true }) },
    });
    template.hasResourceProperties('AWS::Cognito::UserPoolDomain', { ManagedLoginVersion: 2 });
    template.resourceCountIs('AWS::Cognito::ManagedLoginBranding', 1);
  });

  it("names the managed login domain by the stage and the stack's random id, never the account id", () => {
    const [domain] = resources('AWS::Cognito::UserPoolDomain');
    expect(JSON.stringify(domain!.Properties.Domain)).not.toContain('AWS::AccountId');
    const stackUuid = { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] };
    expect(domain!.Properties.Domain).toEqual({ 'Fn::Join': ['-', ['tempmail-test', { 'Fn::Select': [0, { 'Fn::Split': ['-', stackUuid] }] }]] });
  });

  it("leaves the Region's API Gateway logging role alone: no stack overwrites the one every API of the Region uses", () => {
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
    expect(resources('AWS::IAM::Role').filter((role) => JSON.stringify(role.Properties).includes('AmazonAPIGatewayPushToCloudWatchLogs'))).toEqual([]);
  });

  it('gives the console a public client for the authorization code flow only (PKCE), returning to the console over HTTPS', () => {
    const [client] = resources('AWS::Cognito::UserPoolClient');
    expect(client!.Properties).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email'],
      SupportedIdentityProviders: ['COGNITO'],
    });
    expect(JSON.stringify(client!.Properties.CallbackURLs)).toContain('https://');
    expect(JSON.stringify(client!.Properties.CallbackURLs)).toContain('/console/');
  });

  it('tells the console functions the issuer and client id, and no other function', () => {
    const functions = resources('AWS::Lambda::Function').filter((fn) => fn.Properties.Environment?.Variables?.OIDC_ISSUER);
    expect(functions).toHaveLength(routes.filter((route) => 'auth' in route).length);
    for (const fn of functions) expect(fn.Properties.Environment.Variables.OIDC_CLIENT_ID).toEqual({ Ref: expect.stringMatching(/ConsoleClient/) });
  });

  it('serves the console from a private bucket behind CloudFront, HTTPS only, with the API as a second origin', () => {
    const [distribution] = resources('AWS::CloudFront::Distribution');
    const config = distribution!.Properties.DistributionConfig;
    const behaviors = [config.DefaultCacheBehavior, ...config.CacheBehaviors];
    for (const behavior of behaviors) expect(behavior.ViewerProtocolPolicy).toBe('https-only');
    expect(config.CacheBehaviors.map((behavior: { PathPattern: string }) => behavior.PathPattern).sort()).toEqual(['/console/v1/*', '/docs*', '/v1/*']);
    expect(config.Origins).toHaveLength(2);
    expect(config.Origins.find((origin: { S3OriginConfig?: unknown }) => origin.S3OriginConfig)).toMatchObject({ OriginAccessControlId: expect.anything() });
    const api = config.Origins.find((origin: { CustomOriginConfig?: unknown }) => origin.CustomOriginConfig);
    expect(api).toMatchObject({ OriginPath: '/test', CustomOriginConfig: { OriginProtocolPolicy: 'https-only' } });
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([expect.objectContaining({ EventType: 'viewer-request' })]);
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'console-bucket/' }),
    });
  });

  /** The response headers policy a behavior of the distribution names. */
  const headersPolicyOf = (behavior: { ResponseHeadersPolicyId: { Ref: string } }) => template.toJSON().Resources[behavior.ResponseHeadersPolicyId.Ref].Properties.ResponseHeadersPolicyConfig;

  it('sends every console file with a strict CSP (no inline script), frame-ancestors none and HSTS', () => {
    const [distribution] = resources('AWS::CloudFront::Distribution');
    const security = headersPolicyOf(distribution!.Properties.DistributionConfig.DefaultCacheBehavior).SecurityHeadersConfig;
    const csp = JSON.stringify(security.ContentSecurityPolicy.ContentSecurityPolicy);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(JSON.stringify(csp)).not.toContain('unsafe-inline');
    expect(JSON.stringify(csp)).toContain('cognito-idp');
    expect(security.FrameOptions.FrameOption).toBe('DENY');
    expect(security.StrictTransportSecurity.AccessControlMaxAgeSec).toBeGreaterThan(0);
  });

  it('publishes the API reference built from the OpenAPI document at /docs, with no script and the CSP npm start sends', () => {
    const [distribution] = resources('AWS::CloudFront::Distribution');
    const config = distribution!.Properties.DistributionConfig;
    const behavior = config.CacheBehaviors.find((candidate: { PathPattern: string }) => candidate.PathPattern === '/docs*');
    expect(behavior).toMatchObject({ TargetOriginId: config.DefaultCacheBehavior.TargetOriginId, FunctionAssociations: config.DefaultCacheBehavior.FunctionAssociations });
    const policy = headersPolicyOf(behavior);
    expect(policy.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy).toBe(apiReferenceContentSecurityPolicy);
    expect(policy.SecurityHeadersConfig.ContentTypeOptions.Override).toBe(true);
    expect(policy.CustomHeadersConfig.Items).toEqual([{ Header: 'Cache-Control', Value: 'public, max-age=300', Override: true }]);
    // The viewer-request function serves /docs from docs/index.html.
    const functions = resources('AWS::CloudFront::Function').filter((fn) => fn.Properties.FunctionCode.includes("if (request.uri === '/docs') request.uri = '/docs/index.html';"));
    expect(functions).toHaveLength(1);

    // The deployment's files: the page and its stylesheet beside the console, rendered from the document on disk.
    const [deployment] = resources('Custom::CDKBucketDeployment');
    expect(deployment!.Properties.DistributionPaths).toEqual(['/console/*', '/docs*']);
    const staged = (deployment!.Properties.SourceObjectKeys as string[])
      .map((key) => join(assemblyDirectory, `asset.${key.replace(/\.zip$/, '')}`))
      .filter((dir) => existsSync(join(dir, 'console', 'app.js')));
    expect(staged).toHaveLength(1);
    const expected = apiReferenceFiles();
    expect(readFileSync(join(staged[0]!, 'docs', 'index.html'), 'utf8')).toBe(expected.html);
    expect(readFileSync(join(staged[0]!, 'docs', 'reference.css'), 'utf8')).toBe(expected.css);
    expect(expected.html).not.toMatch(/<script/i);
    template.hasOutput('ApiReferenceUrl', {});
  });
});

describe('outputs', () => {
  it('gives what the operator CLI needs', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('MailBucket', { Description: 'BLOB_BUCKET' });
    template.hasOutput('DeadLetterQueueUrl', { Description: 'DEAD_LETTER_QUEUE_URL' });
    template.hasOutput('Stage', { Description: 'TEMPMAIL_ENV', Value: 'test' });
    // `domain add` refuses a domain outside the receipt rule, whose recipients these are.
    template.hasOutput('ReceiptRuleDomains', { Description: 'RECEIPT_RULE_DOMAINS', Value: 'mail.example.test,inbox.example.test' });
    for (const key of tableKeys) {
      template.hasOutput(tableEnvironmentName(key).replace(/_/g, ''), { Description: tableEnvironmentName(key) });
    }
  });

  it('says nothing about notification when alarms are mailed', () => {
    expect(Object.keys(template.findOutputs('*')).filter((id) => id.includes('AlarmNotification'))).toEqual([]);
  });
});

describe('the API\'s own web ACL', () => {
  it('blocks one client IP past its rate with 429 rate_limit_exceeded, Retry-After and the contract error shape', () => {
    const [acl] = resources('AWS::WAFv2::WebACL');
    expect(acl!.Properties.Scope).toBe('REGIONAL');
    expect(acl!.Properties.DefaultAction).toEqual({ Allow: {} });
    const rule = acl!.Properties.Rules.find((candidate: any) => candidate.Statement.RateBasedStatement);
    expect(rule.Statement.RateBasedStatement).toMatchObject({ AggregateKeyType: 'IP', Limit: 3000, EvaluationWindowSec: 60 });
    const response = rule.Action.Block.CustomResponse;
    expect(response.ResponseCode).toBe(429);
    expect(response.ResponseHeaders).toContainEqual({ Name: 'Retry-After', Value: '60' });
    const body = acl!.Properties.CustomResponseBodies[response.CustomResponseBodyKey];
    expect(body.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body.Content)).toEqual({
      error: {
        code: 'rate_limit_exceeded',
        message: expect.stringContaining('retry after 60 seconds'),
        request_id: expect.stringMatching(/^req_/),
        details: [{ reason: 'firewall_throttle' }],
      },
    });
    const associations = resources('AWS::WAFv2::WebACLAssociation');
    for (const association of associations) expect(association.Properties.WebACLArn['Fn::GetAtt'][0]).toMatch(/^IpRateLimitWebAcl/);
    expect(associations.map((association) => JSON.stringify(association.Properties.ResourceArn))).toEqual(
      expect.arrayContaining([expect.stringContaining('ConsoleIdentityUserPool'), expect.stringContaining('ApiDeploymentStage')]),
    );
  });

  it("keys the rate on the viewer's address for requests through the console's distribution, and on the connection's for every other", () => {
    const [acl] = resources('AWS::WAFv2::WebACL');
    const rules = acl!.Properties.Rules as any[];
    expect(rules.map((rule) => rule.Statement.RateBasedStatement.AggregateKeyType)).toEqual(['IP', 'FORWARDED_IP']);
    const [direct, viewer] = rules.map((rule) => rule.Statement.RateBasedStatement);
    // The distribution's proof: its API origin sends the header with the very value the ACL looks for.
    const [distribution] = resources('AWS::CloudFront::Distribution');
    const config = distribution!.Properties.DistributionConfig;
    const apiOrigin = config.Origins.find((origin: any) => origin.OriginPath === '/test');
    const [proof] = apiOrigin.OriginCustomHeaders;
    expect(proof.HeaderName).toBe('x-tempmail-origin-verify');
    const match = viewer.ScopeDownStatement.ByteMatchStatement;
    expect(match).toMatchObject({ FieldToMatch: { SingleHeader: { Name: proof.HeaderName } }, PositionalConstraint: 'EXACTLY' });
    expect(match.SearchString).toEqual(proof.HeaderValue);
    expect(JSON.stringify(proof.HeaderValue)).toContain('AWS::StackId');
    // A direct caller (no proof) is counted by its connection, whatever viewer header it forges.
    expect(direct.ScopeDownStatement).toEqual({ NotStatement: { Statement: viewer.ScopeDownStatement } });
    expect(viewer.ForwardedIPConfig).toEqual({ HeaderName: 'x-tempmail-viewer-address', FallbackBehavior: 'MATCH' });
    expect(viewer).toMatchObject({ Limit: direct.Limit, EvaluationWindowSec: direct.EvaluationWindowSec });
    expect(rules[1].Action).toEqual(rules[0].Action);

    // Both API paths of the distribution write the viewer's address, with a function whose code is checked below.
    const functions = template.findResources('AWS::CloudFront::Function');
    for (const path of ['/v1/*', '/console/v1/*']) {
      const behavior = config.CacheBehaviors.find((candidate: { PathPattern: string }) => candidate.PathPattern === path);
      expect(behavior.TargetOriginId).toBe(apiOrigin.Id);
      const [association] = behavior.FunctionAssociations;
      expect(association.EventType).toBe('viewer-request');
      expect(functions[association.FunctionARN['Fn::GetAtt'][0]]!.Properties.FunctionCode).toBe(viewerAddressFunctionCode);
    }
  });

  it("has the distribution's function overwrite any viewer address a viewer sends with the one CloudFront saw", () => {
    const handler = new Function(`${viewerAddressFunctionCode}; return handler;`)() as (event: unknown) => { headers: Record<string, { value: string }> };
    const forged = { request: { uri: '/v1/emails', headers: { 'x-tempmail-viewer-address': { value: '198.51.100.1' } } }, viewer: { ip: '203.0.113.7' } };
    expect(handler(forged).headers['x-tempmail-viewer-address']).toEqual({ value: '203.0.113.7' });
    const plain = { request: { uri: '/v1/emails', headers: {} }, viewer: { ip: '2001:db8::7' } };
    expect(handler(plain).headers['x-tempmail-viewer-address']).toEqual({ value: '2001:db8::7' });
  });
});
