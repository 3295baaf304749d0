import { callFromCommand, checkPermissions, evaluate, evaluateServiceRequest, loadFunctionRoles, TemplateResolver, type FunctionRole, type ResourcePolicy, type Template } from '../../../local/iam';

const naming = { account: '111122223333', region: 'eu-west-1', stackName: 'Tempmail-test' };
const env = { account: naming.account, region: naming.region };
const tableArn = (name: string) => `arn:aws:dynamodb:eu-west-1:111122223333:table/Tempmail-test-${name}`;

/** A template shaped as CDK synthesizes one: a function, its role, a default policy, a managed policy. */
const template: Template = {
  Parameters: { BootstrapVersion: { Default: '/cdk-bootstrap/hnb659fds/version' } },
  Resources: {
    Accounts: { Type: 'AWS::DynamoDB::GlobalTable', Properties: {} },
    Emails: { Type: 'AWS::DynamoDB::GlobalTable', Properties: {} },
    Named: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: { 'Fn::Sub': '${AWS::StackName}-named' } } },
    Mail: { Type: 'AWS::S3::Bucket', Properties: {} },
    Secret: { Type: 'AWS::SecretsManager::Secret', Properties: {} },
    Dead: { Type: 'AWS::SQS::Queue', Properties: {} },
    FnRole: {
      Type: 'AWS::IAM::Role',
      Properties: {
        ManagedPolicyArns: [{ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']] }],
        Policies: [
          {
            PolicyName: 'inline',
            PolicyDocument: { Statement: [{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': ['Dead', 'Arn'] } }] },
          },
        ],
      },
    },
    FnRoleDefaultPolicy: {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyName: 'FnRoleDefaultPolicy',
        Roles: [{ Ref: 'FnRole' }],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], Resource: { 'Fn::GetAtt': ['Accounts', 'Arn'] } },
            {
              Effect: 'Allow',
              Action: ['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem'],
              Resource: [{ 'Fn::GetAtt': ['Emails', 'Arn'] }, { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Emails', 'Arn'] }, '/index/*']] }],
            },
            { Effect: 'Allow', Action: 's3:GetObject', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Mail', 'Arn'] }, '/inbound/*']] } },
            { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: { Ref: 'Secret' } },
            { Effect: 'Allow', Action: 'ses:DescribeActiveReceiptRuleSet', Resource: '*' },
            { Effect: 'Deny', Action: 'dynamodb:PutItem', Resource: { 'Fn::Sub': ['${Table}/index/*', { Table: { 'Fn::GetAtt': ['Emails', 'Arn'] } }] } },
          ],
        },
      },
    },
    OtherRole: { Type: 'AWS::IAM::Role', Properties: {} },
    OtherPolicy: {
      Type: 'AWS::IAM::Policy',
      Properties: { Roles: [{ Ref: 'OtherRole' }], PolicyDocument: { Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] } },
    },
    Fn: {
      Type: 'AWS::Lambda::Function',
      Metadata: { 'tempmail:entry': 'lambdas/api/handlers/example.ts' },
      Properties: {
        Role: { 'Fn::GetAtt': ['FnRole', 'Arn'] },
        Environment: { Variables: { ACCOUNTS_TABLE: { Ref: 'Accounts' }, NAMED: { Ref: 'Named' }, SECRET: { Ref: 'Secret' }, QUEUE: { Ref: 'Dead' } } },
      },
    },
  },
};

describe('loadFunctionRoles', () => {
  let role: FunctionRole;
  beforeAll(() => {
    const roles = loadFunctionRoles(template, naming);
    expect([...roles.keys()]).toEqual(['Fn']);
    role = roles.get('Fn')!;
  });

  it('collects the inline policy and every AWS::IAM::Policy attached to the role, and no other role’s', () => {
    expect(role.roleLogicalId).toBe('FnRole');
    expect(role.policies.map((policy) => policy.name)).toEqual(['inline', 'FnRoleDefaultPolicy']);
  });

  it('resolves GetAtt, Ref, Join and Sub in policies to concrete ARNs', () => {
    const statements = [role.policies[1]!.document.Statement].flat();
    expect(statements[0]!.Resource).toBe(tableArn('Accounts'));
    expect(statements[1]!.Resource).toEqual([tableArn('Emails'), `${tableArn('Emails')}/index/*`]);
    expect(statements[2]!.Resource).toBe('arn:aws:s3:::tempmail-test-mail/inbound/*');
    expect(statements[3]!.Resource).toBe('arn:aws:secretsmanager:eu-west-1:111122223333:secret:Tempmail-test-Secret-AbCdEf');
    expect(statements[5]!.Resource).toBe(`${tableArn('Emails')}/index/*`);
  });

  it('resolves the environment and notes managed policy ARNs and the source entry', () => {
    expect(role.environment).toEqual({
      ACCOUNTS_TABLE: 'Tempmail-test-Accounts',
      NAMED: 'Tempmail-test-named',
      SECRET: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:Tempmail-test-Secret-AbCdEf',
      QUEUE: 'https://sqs.eu-west-1.amazonaws.com/111122223333/Tempmail-test-Dead',
    });
    expect(role.managedPolicyArns).toEqual(['arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']);
    expect(role.entry).toBe('lambdas/api/handlers/example.ts');
  });

  it('refuses an intrinsic it cannot resolve rather than guess', () => {
    const resolver = new TemplateResolver(template, naming);
    expect(() => resolver.resolve({ 'Fn::ImportValue': 'Elsewhere' })).toThrow(/Fn::ImportValue is not resolved/);
    expect(() => resolver.resolve({ Ref: 'Missing' })).toThrow(/no resource Missing/);
  });

  it('refuses a function whose role is not in the template', () => {
    const broken: Template = { Resources: { Fn: { Type: 'AWS::Lambda::Function', Properties: { Role: 'arn:aws:iam::1:role/x' } } } };
    expect(() => loadFunctionRoles(broken, naming)).toThrow(/has no role of this template/);
  });
});

describe('evaluate', () => {
  const role = () => loadFunctionRoles(template, naming).get('Fn')!;
  const decide = (action: string, resource: string) => evaluate(role(), { action, resource, context: {} });

  it('allows what a statement grants, on the resource it names', async () => {
    await expect(decide('dynamodb:GetItem', tableArn('Accounts'))).resolves.toEqual({ result: 'allowed' });
    await expect(decide('dynamodb:Query', `${tableArn('Emails')}/index/by_account`)).resolves.toEqual({ result: 'allowed' });
    await expect(decide('s3:GetObject', 'arn:aws:s3:::tempmail-test-mail/inbound/abc')).resolves.toEqual({ result: 'allowed' });
    await expect(decide('sqs:SendMessage', 'arn:aws:sqs:eu-west-1:111122223333:Tempmail-test-Dead')).resolves.toEqual({ result: 'allowed' });
    await expect(decide('ses:DescribeActiveReceiptRuleSet', '*')).resolves.toEqual({ result: 'allowed' });
  });

  it('denies an action no statement grants, saying which and why', async () => {
    const decision = await decide('dynamodb:PutItem', tableArn('Accounts'));
    expect(decision).toEqual({ result: 'denied', reason: expect.stringMatching(/dynamodb:PutItem on .*Tempmail-test-Accounts: no statement allows it in the policies of FnRole/) });
    await expect(decide('s3:GetObject', 'arn:aws:s3:::tempmail-test-mail/parsed/abc')).resolves.toMatchObject({ result: 'denied' });
  });

  it('lets an explicit Deny win over an Allow', async () => {
    await expect(decide('dynamodb:PutItem', tableArn('Emails'))).resolves.toEqual({ result: 'allowed' });
    await expect(decide('dynamodb:PutItem', `${tableArn('Emails')}/index/by_account`)).resolves.toEqual({
      result: 'denied',
      reason: expect.stringContaining('explicitly denied in the policies of FnRole'),
      explicitDenyIn: 'identity-based',
    });
  });

  describe('with the resource policy beside the role', () => {
    const bucket = 'arn:aws:s3:::tempmail-test-mail';
    const bucketPolicy: ResourcePolicy = {
      name: 'MailPolicy',
      document: {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:*', Resource: [bucket, `${bucket}/*`], Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
          { Effect: 'Deny', Principal: { AWS: role().roleArn }, Action: 's3:GetObject', Resource: `${bucket}/inbound/held*` },
          {
            Effect: 'Allow',
            Principal: { Service: 'ses.amazonaws.com' },
            Action: 's3:PutObject',
            Resource: `${bucket}/inbound/*`,
            Condition: { StringEquals: { 'aws:SourceAccount': naming.account }, ArnLike: { 'aws:SourceArn': 'arn:aws:ses:eu-west-1:111122223333:receipt-rule-set/*:receipt-rule/tempmail-test' } },
          },
        ],
      },
    };
    const tls = { 'aws:SecureTransport': 'true' };

    it('allows what the role grants unless the bucket policy denies it, and names the policy that did', async () => {
      await expect(evaluate(role(), { action: 's3:GetObject', resource: `${bucket}/inbound/abc`, context: tls }, bucketPolicy)).resolves.toEqual({ result: 'allowed' });
      await expect(evaluate(role(), { action: 's3:GetObject', resource: `${bucket}/inbound/held-1`, context: tls }, bucketPolicy)).resolves.toEqual({
        result: 'denied',
        reason: expect.stringContaining('explicitly denied in the resource policy MailPolicy'),
        explicitDenyIn: 'resource-based',
      });
      // The same call without TLS meets the policy's deny on aws:SecureTransport.
      await expect(
        evaluate(role(), { action: 's3:GetObject', resource: `${bucket}/inbound/abc`, context: { 'aws:SecureTransport': 'false' } }, bucketPolicy),
      ).resolves.toMatchObject({ result: 'denied', explicitDenyIn: 'resource-based' });
    });

    it('lets a service principal do only what the resource policy grants it, under its conditions', async () => {
      const ses = (resource: string, rule: string) =>
        evaluateServiceRequest('ses.amazonaws.com', naming.account, {
          action: 's3:PutObject',
          resource,
          context: { ...tls, 'aws:SourceAccount': naming.account, 'aws:SourceArn': `arn:aws:ses:eu-west-1:111122223333:receipt-rule-set/shared:receipt-rule/${rule}` },
        }, bucketPolicy);
      await expect(ses(`${bucket}/inbound/m1`, 'tempmail-test')).resolves.toEqual({ result: 'allowed' });
      await expect(ses(`${bucket}/inbound/m1`, 'another-rule')).resolves.toMatchObject({ result: 'denied' });
      await expect(ses(`${bucket}/mail/m1`, 'tempmail-test')).resolves.toMatchObject({ result: 'denied' });
      await expect(evaluateServiceRequest('ses.amazonaws.com', naming.account, { action: 's3:PutObject', resource: `${bucket}/inbound/m1`, context: tls }, undefined)).resolves.toMatchObject({
        result: 'denied',
      });
    });
  });

  it('answers unmappable, never allowed, for an unknown action, an unknown resource or a wildcard', async () => {
    await expect(decide('dynamodb:Frobnicate', tableArn('Accounts'))).resolves.toMatchObject({ result: 'unmappable' });
    await expect(decide('dynamodb:GetItem', 'arn:aws:dynamodb:eu-west-1:111122223333:stream/nothing')).resolves.toMatchObject({ result: 'unmappable' });
    await expect(decide('dynamodb:GetItem', 'arn:aws:dynamodb:eu-west-1:111122223333:table/*')).resolves.toMatchObject({ result: 'unmappable' });
    await expect(decide('dynamodb:GetItem', '*')).resolves.toMatchObject({ result: 'unmappable' });
  });

  it('decides afresh once a policy changes, even edited in place: a remembered decision is one of the same policies', async () => {
    const edited = role();
    const request = { action: 'dynamodb:GetItem', resource: tableArn('Accounts'), context: {} };
    await expect(evaluate(edited, request)).resolves.toEqual({ result: 'allowed' });
    for (const policy of edited.policies) {
      policy.document.Statement = [policy.document.Statement].flat().filter((statement) => ![statement.Action].flat().includes('dynamodb:GetItem'));
    }
    await expect(evaluate(edited, request)).resolves.toMatchObject({ result: 'denied' });
    // The role as the template gives it still allows the call.
    await expect(evaluate(role(), request)).resolves.toEqual({ result: 'allowed' });
  });

  it("gives each caller its own decision: one caller's change reaches no other", async () => {
    const first = await decide('dynamodb:PutItem', tableArn('Accounts'));
    (first as { reason: string }).reason = 'changed';
    await expect(decide('dynamodb:PutItem', tableArn('Accounts'))).resolves.toMatchObject({ reason: expect.stringContaining('no statement allows it') });
  });
});

describe('callFromCommand', () => {
  const mapped = (service: string, command: string, input: Record<string, unknown>) => {
    const outcome = callFromCommand(service, command, input, env);
    if (outcome.kind !== 'mapped') throw new Error(outcome.reason);
    return outcome.requests.map(({ action, resource }) => [action, resource]);
  };
  const arn = (name: string) => `arn:aws:dynamodb:eu-west-1:111122223333:table/${name}`;

  it('maps the document client’s and the low-level DynamoDB commands to the same item actions', () => {
    expect(mapped('DynamoDB', 'PutCommand', { TableName: 'accounts', Item: {} })).toEqual([['dynamodb:PutItem', arn('accounts')]]);
    expect(mapped('DynamoDB', 'PutItemCommand', { TableName: 'accounts', Item: {} })).toEqual([['dynamodb:PutItem', arn('accounts')]]);
    expect(mapped('DynamoDB', 'UpdateCommand', { TableName: 'a' })).toEqual([['dynamodb:UpdateItem', arn('a')]]);
  });

  it('maps a Query or Scan on an index to the index ARN', () => {
    expect(mapped('DynamoDB', 'QueryCommand', { TableName: 'emails', IndexName: 'by_account' })).toEqual([['dynamodb:Query', `${arn('emails')}/index/by_account`]]);
    expect(mapped('DynamoDB', 'ScanCommand', { TableName: 'emails' })).toEqual([['dynamodb:Scan', arn('emails')]]);
  });

  it('maps batch and transactional writes to one request per table or item', () => {
    expect(mapped('DynamoDB', 'BatchWriteCommand', { RequestItems: { a: [], b: [] } })).toEqual([
      ['dynamodb:BatchWriteItem', arn('a')],
      ['dynamodb:BatchWriteItem', arn('b')],
    ]);
    expect(mapped('DynamoDB', 'BatchGetItemCommand', { RequestItems: { a: {} } })).toEqual([['dynamodb:BatchGetItem', arn('a')]]);
    expect(
      mapped('DynamoDB', 'TransactWriteCommand', {
        TransactItems: [{ Put: { TableName: 'a' } }, { Update: { TableName: 'b' } }, { Delete: { TableName: 'c' } }, { ConditionCheck: { TableName: 'd' } }],
      }),
    ).toEqual([
      ['dynamodb:PutItem', arn('a')],
      ['dynamodb:UpdateItem', arn('b')],
      ['dynamodb:DeleteItem', arn('c')],
      ['dynamodb:ConditionCheckItem', arn('d')],
    ]);
  });

  it('maps S3 object commands to the object ARN, multipart uploads to PutObject', () => {
    expect(mapped('S3', 'GetObjectCommand', { Bucket: 'mail', Key: 'inbound/x' })).toEqual([['s3:GetObject', 'arn:aws:s3:::mail/inbound/x']]);
    expect(mapped('S3', 'UploadPartCommand', { Bucket: 'mail', Key: 'k' })).toEqual([['s3:PutObject', 'arn:aws:s3:::mail/k']]);
    expect(mapped('S3', 'AbortMultipartUploadCommand', { Bucket: 'mail', Key: 'k' })).toEqual([['s3:AbortMultipartUpload', 'arn:aws:s3:::mail/k']]);
  });

  it('maps a DeleteObjects to s3:DeleteObject on each of its keys, as S3 authorizes it', () => {
    expect(mapped('S3', 'DeleteObjectsCommand', { Bucket: 'mail', Delete: { Objects: [{ Key: 'mail/m1/text' }, { Key: 'inbound/x' }] } })).toEqual([
      ['s3:DeleteObject', 'arn:aws:s3:::mail/mail/m1/text'],
      ['s3:DeleteObject', 'arn:aws:s3:::mail/inbound/x'],
    ]);
  });

  it('maps SQS, Secrets Manager, SES, CloudFormation and Lambda', () => {
    expect(mapped('SQS', 'ReceiveMessageCommand', { QueueUrl: 'http://127.0.0.1:4566/000000000000/dead' })).toEqual([
      ['sqs:ReceiveMessage', 'arn:aws:sqs:eu-west-1:111122223333:dead'],
    ]);
    const secret = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:cursor-AbCdEf';
    expect(mapped('Secrets Manager', 'GetSecretValueCommand', { SecretId: secret })).toEqual([['secretsmanager:GetSecretValue', secret]]);
    expect(mapped('SES', 'SetActiveReceiptRuleSetCommand', { RuleSetName: 'x' })).toEqual([['ses:SetActiveReceiptRuleSet', '*']]);
    expect(mapped('CloudFormation', 'DescribeStacksCommand', { StackName: 'Tempmail-test' })).toEqual([
      ['cloudformation:DescribeStacks', 'arn:aws:cloudformation:eu-west-1:111122223333:stack/Tempmail-test/00000000-0000-4000-8000-000000000000'],
    ]);
    expect(mapped('Lambda', 'InvokeCommand', { FunctionName: 'parser' })).toEqual([['lambda:InvokeFunction', 'arn:aws:lambda:eu-west-1:111122223333:function:parser']]);
  });

  it('answers unmappable for an unknown command or an input it cannot place', () => {
    expect(callFromCommand('DynamoDB', 'ExecuteStatementCommand', {}, env)).toMatchObject({ kind: 'unmappable', reason: 'no IAM mapping for DynamoDB ExecuteStatement' });
    expect(callFromCommand('Kinesis', 'PutRecordCommand', {}, env)).toMatchObject({ kind: 'unmappable' });
    expect(callFromCommand('DynamoDB', 'GetCommand', {}, env)).toMatchObject({ kind: 'unmappable', reason: 'DynamoDB Get: the input has no TableName' });
    expect(callFromCommand('CloudFormation', 'DescribeStacksCommand', {}, env)).toMatchObject({ kind: 'unmappable' });
  });

  it('feeds evaluate: a mapped command is judged against the role', async () => {
    const role = loadFunctionRoles(template, naming).get('Fn')!;
    const put = callFromCommand('DynamoDB', 'PutCommand', { TableName: 'Tempmail-test-Accounts' }, env);
    if (put.kind !== 'mapped') throw new Error(put.reason);
    await expect(evaluate(role, put.requests[0]!)).resolves.toMatchObject({ result: 'denied' });
  });
});

describe('checkPermissions', () => {
  const entry = 'lambdas/api/handlers/example.ts';
  const put = { entry, service: 'DynamoDB', command: 'PutCommand', input: { TableName: '${ACCOUNTS_TABLE}' } };
  const get = { entry, service: 'DynamoDB', command: 'GetCommand', input: { TableName: '${ACCOUNTS_TABLE}' } };
  const manifest = [{ name: 'example', entry }];

  it('passes calls the role allows, under the deployed names from the function’s environment', async () => {
    await expect(checkPermissions(template, [get], naming, manifest)).resolves.toEqual({ problems: [], allowed: 1, outsideFunctions: 0 });
  });

  it('lists a denied call with its function, action and resource (the first console sign-in’s PutItem)', async () => {
    const report = await checkPermissions(template, [get, put], naming, manifest);
    expect(report.problems).toEqual([
      `Fn: denied: dynamodb:PutItem on ${tableArn('Accounts')}: no statement allows it in the policies of FnRole (managed policies not evaluated: arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole)`,
    ]);
  });

  it('fails a call whose resource the function has no variable for, an unknown command, or an unknown source', async () => {
    const report = await checkPermissions(
      template,
      [
        { entry, service: 'Secrets Manager', command: 'GetSecretValueCommand', input: { SecretId: '${CURSOR_SECRET_ARN}' } },
        { entry, service: 'DynamoDB', command: 'ExecuteStatementCommand', input: {} },
        { entry: 'lambdas/elsewhere.ts', service: 'DynamoDB', command: 'GetCommand', input: { TableName: 'x' } },
        { service: 'DynamoDB', command: 'ScanCommand', input: { TableName: 'x' } },
      ],
      naming,
      manifest,
    );
    expect(report.problems).toEqual([
      'Fn: Secrets Manager GetSecretValueCommand needs CURSOR_SECRET_ARN, which its environment lacks',
      'Fn: unmappable: no IAM mapping for DynamoDB ExecuteStatement',
      'lambdas/elsewhere.ts: sent DynamoDB GetCommand, but no function of the template is built from it',
    ]);
    expect(report.outsideFunctions).toBe(1);
  });

  it('fails a declared function that sent no recorded call, by its manifest name', async () => {
    const report = await checkPermissions(template, [], naming, manifest);
    expect(report.problems).toEqual(['example: no call recorded from lambdas/api/handlers/example.ts: its permissions were not checked']);
  });

  it('holds a function the template builds from an undeclared source (a custom resource) to the same rule, by its logical id', async () => {
    const report = await checkPermissions(template, [], naming, []);
    expect(report.problems).toEqual(['Fn: no call recorded from lambdas/api/handlers/example.ts: its permissions were not checked']);
  });

  it('fails a function the manifest declares that the template does not build', async () => {
    const report = await checkPermissions(template, [get], naming, [...manifest, { name: 'listThings', entry: 'lambdas/api/handlers/list-things.ts' }]);
    expect(report.problems).toEqual(['listThings: declared in the manifest, but no function of the template is built from lambdas/api/handlers/list-things.ts']);
  });
});
