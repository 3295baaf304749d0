import { App, Stack, Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { routes } from '../../lambdas/api/routes';
import { tableDefinitions, tableEnvironmentName, tableKeys } from '../../lambdas/adapters/dynamodb/table-definitions';
import { TempmailStack } from '../../lib/tempmail-stack';

let template: Template;
type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': ['**'] } });
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
}, 180_000);

const resources = (type: string): Resource[] => Object.values(template.findResources(type)) as Resource[];
const policies = () => resources('AWS::IAM::Policy');
const statementsOf = (policy: Resource): any[] => policy.Properties.PolicyDocument.Statement;

describe('the stack, checked by cdk-nag (AwsSolutions)', () => {
  it('synthesizes with no unacknowledged finding', () => {
    expect(template.findResources('AWS::Lambda::Function')).not.toEqual({});
  });

  it('would stop synthesis on a finding nobody acknowledged', () => {
    const app = new App();
    const stack = new Stack(app, 'Careless');
    new Bucket(stack, 'Open');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-S(1|10)/);
  });
});

describe('storage', () => {
  it('makes every table on demand, with point-in-time recovery, encrypted, retained, TTL where defined', () => {
    const tables = resources('AWS::DynamoDB::GlobalTable');
    expect(tables).toHaveLength(tableKeys.length);
    for (const table of tables) {
      expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(table.Properties.Replicas[0].PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS' });
      expect(table.DeletionPolicy).toBe('Retain');
    }
    const withTtl = Object.values(tableDefinitions).filter((definition) => 'ttlAttribute' in definition).length;
    expect(tables.filter((table) => table.Properties.TimeToLiveSpecification?.Enabled === true)).toHaveLength(withTtl);
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
      expect(body).toEqual({ error: { code, message: expect.any(String), request_id: 'req_$context.requestId' } });
      expect(response!.ResponseParameters['gatewayresponse.header.Cache-Control']).toBe("'private, no-store'");
    }
    expect(byType.get('THROTTLED')!.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'1'");
  });

  it('logs access without bodies or query strings', () => {
    const stage = resources('AWS::ApiGateway::Stage')[0]!;
    const format: string = stage.Properties.AccessLogSetting.Format;
    expect(format).toContain('$context.resourcePath');
    for (const leak of ['$context.path', 'requestOverride', '$input', 'querystring']) expect(format).not.toContain(leak);
    expect(stage.Properties.MethodSettings ?? []).not.toContainEqual(expect.objectContaining({ DataTraceEnabled: true }));
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

  it('grants no data-plane action on a "*" resource', () => {
    for (const policy of policies()) {
      for (const statement of statementsOf(policy)) {
        const actions: string[] = [statement.Action].flat();
        const dataPlane = actions.some((action) => /^(dynamodb|s3|sqs|secretsmanager):/.test(action));
        if (dataPlane) expect([statement.Resource].flat()).not.toContain('*');
      }
    }
  });

  it('limits each route to its own tables: reads never write, and only create touches the address registry', () => {
    const policyOf = (functionLogicalIdPrefix: string) =>
      policies().filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref.startsWith(functionLogicalIdPrefix)));
    const tablesTouched = (prefix: string, action: string) =>
      policyOf(prefix)
        .flatMap(statementsOf)
        .filter((statement) => [statement.Action].flat().includes(action))
        .flatMap((statement) => [statement.Resource].flat())
        .map((resource) => JSON.stringify(resource).match(/Storage(\w+?)Table/)?.[1])
        .filter(Boolean);
    expect(new Set(tablesTouched('ApigetEmailFunction', 'dynamodb:PutItem'))).toEqual(new Set(['accounts']));
    expect(new Set(tablesTouched('ApicreateEmailFunction', 'dynamodb:PutItem'))).toEqual(
      new Set(['accounts', 'emails', 'addresses', 'idempotency']),
    );
    expect(new Set(tablesTouched('ApilistDomainsFunction', 'dynamodb:GetItem'))).toEqual(new Set(['accounts', 'domains']));
    expect(new Set(tablesTouched('ApiAuthorizerFunction', 'dynamodb:GetItem'))).toEqual(new Set(['accounts', 'apiKeys']));
    expect(tablesTouched('ApiAuthorizerFunction', 'dynamodb:PutItem')).toEqual(['accounts']);
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
  it('filters recipients first, stores the raw message, then parses it, for the configured domains', () => {
    const rule = resources('AWS::SES::ReceiptRule')[0]!;
    expect(rule.Properties.Rule.Recipients).toEqual(['mail.example.test', 'inbox.example.test']);
    const actions = rule.Properties.Rule.Actions as Record<string, any>[];
    expect(actions.map((action) => Object.keys(action)[0])).toEqual(['LambdaAction', 'S3Action', 'LambdaAction']);
    expect(actions[0]!.LambdaAction.InvocationType).toBe('RequestResponse');
    expect(actions[1]!.S3Action.ObjectKeyPrefix).toBe('inbound/');
    expect(actions[2]!.LambdaAction.InvocationType).toBe('Event');
  });

  it('activates the rule set and writes MX records when a zone is given', () => {
    expect(resources('Custom::AWS')).toHaveLength(1);
    template.resourceCountIs('AWS::Route53::RecordSet', 2);
    template.hasResourceProperties('AWS::Route53::RecordSet', { Type: 'MX' });
  });

  it('sweeps every minute', () => {
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
  });

  it('alarms on 5xx rate, authorizer errors, parser failures and dead letters, mailed to the operator', () => {
    template.resourceCountIs('AWS::CloudWatch::Alarm', 4);
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.test' });
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
    expect(config.CacheBehaviors.map((behavior: { PathPattern: string }) => behavior.PathPattern).sort()).toEqual(['/console/v1/*', '/v1/*']);
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

  it('sends every console file with a strict CSP (no inline script), frame-ancestors none and HSTS', () => {
    const [policy] = resources('AWS::CloudFront::ResponseHeadersPolicy');
    const security = policy!.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = JSON.stringify(security.ContentSecurityPolicy.ContentSecurityPolicy);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(JSON.stringify(csp)).not.toContain('unsafe-inline');
    expect(JSON.stringify(csp)).toContain('cognito-idp');
    expect(security.FrameOptions.FrameOption).toBe('DENY');
    expect(security.StrictTransportSecurity.AccessControlMaxAgeSec).toBeGreaterThan(0);
  });
});

describe('outputs', () => {
  it('gives what the operator CLI needs', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('MailBucket', { Description: 'BLOB_BUCKET' });
    for (const key of tableKeys) {
      template.hasOutput(tableEnvironmentName(key).replace(/_/g, ''), { Description: tableEnvironmentName(key) });
    }
  });
});
