import { json } from '../support/json';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { runAdmin } from '../../cli/admin';
import { localTableNames, tableEnvironmentName, tableKeys } from '../../lambdas/adapters/dynamodb/table-definitions';
import { startTestService } from '../support/local-service';
import { contractFetch } from '../support/contract';
import { runProcess } from '../support/run-process';
import { sendMail } from '../support/smtp-client';
import { runAdminCommand, spawnNpmStart } from '../support/spawn-service';
import { folderPerTest } from '../support/folder-per-test';

/** Runs the CLI in-process and captures what it prints. */
async function admin(args: string[], env: NodeJS.ProcessEnv) {
  let stdout = '';
  let stderr = '';
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += chunk), true));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += chunk), true));
  try {
    const code = await runAdmin(args, env);
    return { code, stdout, stderr, json: () => JSON.parse(stdout) };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

const data = folderPerTest('tempmail-cli-');

describe('operator CLI against a running local service', () => {
  it('creates accounts and keys, grants, revokes and suspends, as the API then shows', async () => {
    const service = await startTestService({ dataDir: data.path });
    const env = { DATA_DIR: data.path };
    try {
      const created = await admin(['account', 'create', '--plan', 'free'], env);
      expect(created.code).toBe(0);
      const { account_id: accountId, api_key: firstKey } = created.json();

      const second = (await admin(['key', 'create', '--account', accountId], env)).json();
      expect(second).toMatchObject({ account_id: accountId, api_key: expect.stringMatching(/^tm_local_/) });
      expect(second.api_key).not.toBe(firstKey);

      const granted = await admin(['allowance', 'grant', '--account', accountId, '--requests', '50'], env);
      expect(granted.json()).toMatchObject({ account_id: accountId, remaining_requests: 150, additional_requests: 50 });

      expect((await admin(['key', 'revoke', '--key', firstKey], env)).json()).toEqual({ revoked: true });
      expect((await service.request('/v1/usage', { key: firstKey })).status).toBe(401);
      expect((await service.request('/v1/usage', { key: second.api_key })).status).toBe(200);

      expect((await admin(['domain', 'add', 'Fresh.Example.TEST.'], env)).json()).toEqual({
        domain: 'fresh.example.test',
        create_enabled: true,
        receive_enabled: true,
      });
      const listed = (await admin(['domain', 'list'], env)).json();
      expect(listed.data.map((record: { domain: string }) => record.domain)).toEqual(['fresh.example.test', 'tempmail.localhost']);

      await admin(['account', 'suspend', '--account', accountId], env);
      expect((await service.request('/v1/usage', { key: second.api_key })).status).toBe(403);
    } finally {
      await service.close();
    }
  });

  it('binds a key to the environment it was created for', async () => {
    const service = await startTestService({ dataDir: data.path });
    try {
      const staging = (await admin(['account', 'create', '--plan', 'paid', '--env', 'staging'], { DATA_DIR: data.path })).json();
      expect(staging.api_key).toMatch(/^tm_staging_/);
      expect((await service.request('/v1/usage', { key: staging.api_key })).status).toBe(401);
    } finally {
      await service.close();
    }
  });
});

describe('operator CLI processes against npm start', () => {
  it("prints a key as export lines a shell evaluates, as npm start's ready line says, and a domain it adds receives mail", async () => {
    const service = await spawnNpmStart({ DATA_DIR: data.path });
    try {
      // The command the ready line gives, run as written in a shell.
      const command = /key: (eval "\$\(.+\)")$/m.exec(service.output())?.[1];
      expect(command).toBe(`eval "$(DATA_DIR=${data.path} npm run --silent admin -- account create --plan paid --format env)"`);
      const shell = await runProcess('bash', ['-c', `${command} && printf '%s\\n' "$TEMPMAIL_API_KEY" "$TEMPMAIL_BASE_URL" "$SMTP_PORT"`], {
        cwd: join(__dirname, '..', '..'),
      });
      expect(shell.stderr).toBe('');
      const [apiKey, baseUrl, smtpPort] = shell.stdout.trim().split('\n');
      expect({ baseUrl, smtpPort: Number(smtpPort) }).toEqual({ baseUrl: service.apiUrl, smtpPort: service.smtpPort });
      const usage = await json(await contractFetch(`${baseUrl}/v1/usage`, { headers: { Authorization: `Bearer ${apiKey}` } }));
      expect(usage.data).toMatchObject({ plan: 'paid' });

      // No receipt rule here: the SMTP intake takes every registered domain, so domain add stays open.
      const added = await runAdminCommand(['domain', 'add', 'later.example.test'], { DATA_DIR: data.path });
      expect({ code: added.code, record: JSON.parse(added.stdout) }).toEqual({
        code: 0,
        record: { domain: 'later.example.test', create_enabled: true, receive_enabled: true },
      });
      const created = await contractFetch(`${baseUrl}/v1/emails`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'later-domain-0001' },
        body: JSON.stringify({ domain: 'later.example.test' }),
      });
      expect(created.status).toBe(201);
      const email = (await json(created)).data as { id: string; address: string };
      await sendMail(service.smtpPort, { from: 'sender@example.org', to: email.address, subject: 'on a later domain', text: 'received' });
      const messages = await json(await contractFetch(`${baseUrl}/v1/emails/${email.id}/messages`, { headers: { Authorization: `Bearer ${apiKey}` } }));
      expect(messages.data.map((message: { subject: string }) => message.subject)).toEqual(['on a later domain']);
    } finally {
      await service.stop('SIGTERM');
    }
    // npm start and three CLI processes, each starting Node.
  }, 60_000);
});

describe('operator CLI with no service running', () => {
  it('opens the data directory itself, and the service later sees what it wrote', async () => {
    const created = await admin(['account', 'create', '--plan', 'paid'], { DATA_DIR: data.path });
    expect(created.code).toBe(0);
    const service = await startTestService({ dataDir: data.path });
    try {
      const response = await service.request('/v1/usage', { key: created.json().api_key });
      expect((await json(response)).data).toMatchObject({ plan: 'paid', remaining_requests: 10_000 });
    } finally {
      await service.close();
    }
  });

  it.each([
    [['account', 'create'], '--plan is required'],
    [['account', 'create', '--plan', 'gold'], '--plan must be free or paid'],
    [['domain', 'add'], 'domain add needs a NAME'],
    [['domain', 'add', 'a.example.test', 'b.example.test'], "domain add takes one NAME, not 'b.example.test'"],
    [['account', 'list', 'everything'], "account list takes no NAME, not 'everything'"],
    [['account', 'create', '--plan', 'paid', '--format', 'yaml'], '--format must be json or env'],
    [['key', 'list', '--account', 'acc_x', '--plan', 'free'], 'key list takes no --plan'],
    [['frobnicate'], 'Usage: admin'],
    [['account', 'create', '--bogus'], "Unknown option '--bogus'"],
    [['key', 'revoke'], 'give --key or --key-id'],
    [['key', 'revoke', '--key', 'tm_local_x', '--key-id', 'key_x'], 'give --key or --key-id, not both'],
    [['allowance', 'grant', '--account', 'acc_x'], '--requests is required'],
  ])('explains a command-line mistake before it opens anything: %j', async (args, message) => {
    const result = await admin(args, { DATA_DIR: data.path });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
    // The data directory was not opened: no local DynamoDB was started in it.
    expect(await readdir(data.path)).toEqual([]);
  });

  it('explains that mail redrive needs a dead-letter queue, which npm start does not have', async () => {
    const result = await admin(['mail', 'redrive'], { DATA_DIR: data.path });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('mail redrive needs the dead-letter queue');
    expect(result.stdout).toBe('');
  });

  it.each([
    [['allowance', 'grant', '--account', 'acc_missing', '--requests', '5'], 'resource_not_found'],
    [['allowance', 'grant', '--account', 'acc_missing', '--requests', '0'], 'invalid_request'],
    [['key', 'revoke', '--key', 'tm_local_nope'], 'resource_not_found'],
    [['account', 'suspend', '--account', 'acc_missing'], 'resource_not_found'],
    [['key', 'revoke', '--key-id', 'key_missing'], 'resource_not_found'],
    [['key', 'list', '--account', 'acc_missing'], 'resource_not_found'],
    [['domain', 'disable', 'absent.example.test'], 'resource_not_found'],
    [['domain', 'add', 'not a domain'], 'invalid_request'],
    [['account', 'create', '--plan', 'free', '--env', 'Bad_Env'], 'invalid_request'],
  ])('answers a failed command with a JSON error and exit 1: %j', async (args, code) => {
    const result = await admin(args, { DATA_DIR: data.path });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({ error: { code, message: expect.any(String) } });
  });
});

describe('operator CLI against a deployed stack (--stack)', () => {
  const cloudFormation = mockClient(CloudFormationClient);
  afterEach(() => cloudFormation.reset());

  /** The outputs the stack declares, naming this test's dynalite tables (DynamoDB is reached through DYNAMODB_ENDPOINT). */
  function stackOutputs(stage: string) {
    const tables = localTableNames();
    return [
      { OutputKey: 'ApiUrl', OutputValue: 'https://example.execute-api.us-east-1.amazonaws.com/prod/' },
      { OutputKey: 'Stage', OutputValue: stage, Description: 'TEMPMAIL_ENV' },
      { OutputKey: 'ReceiptRuleDomains', OutputValue: 'tempmail.localhost', Description: 'RECEIPT_RULE_DOMAINS' },
      ...tableKeys.map((key) => ({
        OutputKey: tableEnvironmentName(key).replace(/_/g, ''),
        OutputValue: tables[key],
        Description: tableEnvironmentName(key),
      })),
    ];
  }

  it('reads the table names from the stack, and lists, revokes by key id, disables domains and adds only those of its receipt rule', async () => {
    const service = await startTestService({ dataDir: data.path });
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [{ StackName: 'Tempmail-local', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: stackOutputs('local') }],
    });
    const env = { DYNAMODB_ENDPOINT: service.runtime.dynamodbEndpoint, AWS_REGION: 'us-east-1' };
    const cli = (args: string[]) => admin(['--stack', 'Tempmail-local', ...args], env);
    try {
      // --env defaults to the stack's stage, so the key authenticates against that stage.
      const opened = (await cli(['account', 'create', '--plan', 'free'])).json();
      expect(opened.env).toBe('local');
      expect(cloudFormation.commandCalls(DescribeStacksCommand)[0]!.args[0].input).toEqual({ StackName: 'Tempmail-local' });
      const second = (await cli(['key', 'create', '--account', opened.account_id])).json();
      // In AWS the CLI knows the key, not where a client should call: it says so in the export lines.
      expect((await cli(['account', 'create', '--plan', 'paid', '--format', 'env'])).stdout).toMatch(
        /^export TEMPMAIL_API_KEY='tm_local_[A-Za-z0-9_-]+'\n# TEMPMAIL_BASE_URL: the stack's ApiUrl output\n$/,
      );

      const accounts = (await cli(['account', 'list'])).json().data;
      expect(accounts).toContainEqual({
        account_id: opened.account_id,
        plan: 'free',
        status: 'active',
        env: 'local',
        created_at: expect.any(String),
        remaining_requests: 100,
        additional_requests: 0,
      });

      const listed = await cli(['key', 'list', '--account', opened.account_id]);
      expect(listed.json().data.map((key: { key_id: string; status: string }) => [key.key_id, key.status]).sort()).toEqual(
        [[opened.key_id, 'active'], [second.key_id, 'active']].sort(),
      );
      expect(listed.stdout).not.toContain(opened.api_key);
      expect(listed.stdout).not.toMatch(/key_hash|[0-9a-f]{64}/);

      const revoked = (await cli(['key', 'revoke', '--key-id', opened.key_id])).json();
      expect(revoked).toMatchObject({ revoked: true, key_id: opened.key_id, account_id: opened.account_id, status: 'revoked' });
      expect((await service.request('/v1/usage', { key: opened.api_key })).status).toBe(401);
      expect((await service.request('/v1/usage', { key: second.api_key })).status).toBe(200);

      expect((await cli(['domain', 'disable', 'TEMPMAIL.localhost'])).json()).toEqual({
        domain: 'tempmail.localhost',
        create_enabled: false,
        receive_enabled: false,
      });
      const domains = await json(await service.request('/v1/domains', { key: second.api_key }));
      expect(domains.data).toEqual([{ domain: 'tempmail.localhost', create_enabled: false, receive_enabled: false }]);

      // SES refuses mail to a domain outside the stack's receipt rule: not added, and the redeploy that adds it is named.
      const refused = await cli(['domain', 'add', 'Other.Example.TEST']);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stderr).error).toEqual({
        code: 'policy_violation',
        message: expect.stringContaining('npx cdk deploy -c stage=local -c domains=tempmail.localhost,other.example.test'),
      });
      expect((await cli(['domain', 'list'])).json()).toEqual({
        data: [{ domain: 'tempmail.localhost', create_enabled: false, receive_enabled: false, in_receipt_rule: true }],
        receipt_rule_domains: ['tempmail.localhost'],
      });
      // A domain of the rule is added again (enabled after a disable).
      expect((await cli(['domain', 'add', 'tempmail.localhost'])).json()).toMatchObject({ domain: 'tempmail.localhost', receive_enabled: true });
    } finally {
      await service.close();
    }
  });

  it('says which stack it could not read, and touches nothing', async () => {
    cloudFormation.on(DescribeStacksCommand).rejects(Object.assign(new Error('Stack with id Nope does not exist'), { name: 'ValidationError' }));
    const result = await admin(['--stack', 'Nope', 'account', 'list'], { AWS_REGION: 'us-east-1' });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.message).toContain('Stack with id Nope does not exist');
  });

  it('refuses a command-line mistake before it asks AWS for the stack', async () => {
    const result = await admin(['--stack', 'Tempmail-local', 'account', 'create', '--plan', 'gold'], { AWS_REGION: 'us-east-1' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--plan must be free or paid');
    expect(cloudFormation.commandCalls(DescribeStacksCommand)).toHaveLength(0);
  });

  it('names in its help every table variable it needs', async () => {
    const result = await admin(['--help'], {});
    expect(result.code).toBe(0);
    const help = result.stderr.replace(/\s+/g, ' ');
    for (const key of tableKeys) expect(help).toContain(tableEnvironmentName(key));
    expect(help).toContain(`all ${tableKeys.length} table variables`);
  });

  it('adds no domain against AWS when the receipt rule\'s domains are not known, and says where they come from', async () => {
    const tables = localTableNames();
    const result = await admin(['domain', 'add', 'new.example.test'], Object.fromEntries(tableKeys.map((key) => [tableEnvironmentName(key), tables[key]])));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('set RECEIPT_RULE_DOMAINS');
  });

  it('refuses a partial set of table variables, naming the missing ones', async () => {
    const result = await admin(['account', 'list'], { ACCOUNTS_TABLE: 'a', API_KEYS_TABLE: 'b', DOMAINS_TABLE: 'c' });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.message).toContain('EMAILS_TABLE, ADDRESSES_TABLE, IDEMPOTENCY_TABLE, MESSAGES_TABLE');
  });
});
