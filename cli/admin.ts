import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DirectoryBlobStore } from '../lambdas/adapters/blobs/directory-blob-store';
import { S3BlobStore } from '../lambdas/adapters/blobs/s3-blob-store';
import { SqsDeadLetterQueue } from '../lambdas/adapters/sqs/sqs-dead-letter-queue';
import { messageLifetimeSeconds } from '../lambdas/core/lifetimes';
import { defaultDataDir } from '../local/config';
import { jsonLogger } from '../lambdas/adapters/json-logger';
import { sesDeadLetterMail } from '../lambdas/inbound/ses-events';
import { redriveDeadLetters } from '../lambdas/mail/redrive-dead-letters';
import { grantAllowance, listAccounts, openAccount, suspendAccount } from '../lambdas/core/accounts';
import { issueApiKey, listApiKeys, revokeApiKey, revokeApiKeyById } from '../lambdas/core/api-keys';
import { systemClock } from '../lambdas/adapters/system-clock';
import { ServiceError } from '../lambdas/core/errors';
import { plans, type Plan } from '../lambdas/core/plans';
import { readUsage } from '../lambdas/core/usage';
import type { Stores } from '../lambdas/composition/services';
import { checkCommandLine, UsageError, type Command } from './command';
import { domainCommands } from './domain-commands';
import { shellExports, ShellText } from './shell-exports';
import { tableEnvironmentName, tableKeys } from '../lambdas/adapters/dynamodb/table-definitions';
import { announcedDeadLetterQueue } from '../local/endpoint-file';
import { connect } from './connect';
import { stackEnvironment } from './stack-outputs';
import { functionEnvironmentNames as variables } from '../lambdas/composition/function-environment';

const usage = `Usage: admin [--stack NAME] <command>
  account create --plan free|paid [--env NAME] [--format json|env]
                                                 open an account with its first API key; --format env
                                                 prints export lines (key, and the local API and SMTP port)
  account list                                   list every account with its allowance
  account suspend --account ID                   suspend an account (its requests get 403)
  key create --account ID                        issue another API key for an account
  key list --account ID                          list an account's keys (ids and status, never the keys)
  key revoke --key KEY | --key-id ID             revoke an API key (it then gets 401)
  domain add NAME                                register a receiving domain (against a stack, only one its
                                                 SES receipt rule covers: else it prints the redeploy command)
  domain disable NAME                            stop creating addresses on a domain and receiving for it
  domain list                                    list the receiving domains (and which the receipt rule covers)
  allowance grant --account ID --requests N      add requests to an account's allowance
  mail redrive                                   re-ingest mail the parser dead-lettered (AWS, or a running
                                                 npm run start:stack); mail past its 15 minutes is dropped
Prints one JSON object on stdout (account create --format env: shell export lines).
A mistake in the command line exits 2 before anything is opened or asked of AWS.
Locally it works on the local service's data (DATA_DIR). Against AWS, give --stack NAME: the
table names (and the stage, for --env) are read from the stack's outputs with CloudFormation
DescribeStacks, using the usual AWS credentials and AWS_REGION. Instead of --stack, all
${tableKeys.length} table variables can be set: ${tableKeys.map(tableEnvironmentName).join(', ')}
(the stack outputs them too); domain add also needs ${variables.receiptRuleDomains}, mail redrive
${variables.blobBucket} and DEAD_LETTER_QUEUE_URL.
Locally, mail redrive reads the dead-letter queue of the npm run start:stack running on DATA_DIR.`;

const planNames = Object.keys(plans) as [Plan, Plan];

const commands: Record<string, Command> = {
  'account create': {
    line: { required: ['plan'], optional: ['env', 'format'], choices: { plan: planNames, format: ['json', 'env'] } },
    run: async (stores, { values, environment, local, connection }) => {
      const plan = values.plan as Plan;
      const env = values.env ?? environment[variables.stage] ?? connection.service?.env ?? 'local';
      const opened = await openAccount({ plan, env }, { ...stores, clock: systemClock });
      if (values.format === 'env') return shellExports(opened.apiKey, connection.service, local);
      return { account_id: opened.accountId, api_key: opened.apiKey, key_id: opened.keyId, plan, env };
    },
  },
  'account list': {
    line: {},
    run: async (stores) => {
      const accounts = await listAccounts(stores);
      return {
        data: accounts.map((account) => ({
          account_id: account.accountId,
          plan: account.plan,
          status: account.status,
          env: account.env,
          created_at: account.createdAt,
          remaining_requests: account.allowance.remaining,
          additional_requests: account.allowance.additional,
        })),
      };
    },
  },
  'account suspend': {
    line: { required: ['account'] },
    run: async (stores, { values }) => {
      const accountId = values.account!;
      await suspendAccount(accountId, stores);
      return { account_id: accountId, status: 'suspended' };
    },
  },
  'key create': {
    line: { required: ['account'] },
    run: async (stores, { values }) => {
      const accountId = values.account!;
      const key = await issueApiKey(accountId, { ...stores, clock: systemClock });
      return { account_id: accountId, api_key: key.apiKey, key_id: key.keyId };
    },
  },
  'key list': {
    line: { required: ['account'] },
    run: async (stores, { values }) => ({ data: await listApiKeys(values.account!, stores) }),
  },
  'key revoke': {
    line: { oneOf: ['key', 'key-id'] },
    run: async (stores, { values }) => {
      if (values['key-id']) return { revoked: true, ...(await revokeApiKeyById(values['key-id'], stores)) };
      await revokeApiKey(values.key!, stores);
      return { revoked: true };
    },
  },
  ...domainCommands,
  'mail redrive': { line: {}, run: async (stores, { environment, local }) => redriveMail(stores, environment, local) },
  'allowance grant': {
    line: { required: ['account', 'requests'] },
    run: async (stores, { values }) => {
      const accountId = values.account!;
      await grantAllowance(accountId, Number(values.requests), stores);
      return { account_id: accountId, ...(await readUsage(accountId, stores)) };
    },
  },
};

/** Mail redrive: the stack's dead-letter queue and bucket, the stores, the contract's message lifetime. */
async function redriveMail(stores: Stores, environment: NodeJS.ProcessEnv, local: boolean) {
  const source = await deadLetterSource(environment, local);
  return redriveDeadLetters({
    ...stores,
    ...source,
    clock: systemClock,
    logger: jsonLogger('warn', (line) => process.stderr.write(`${line}\n`)),
    env: environment[variables.stage] ?? 'local',
    messageTtlSeconds: messageLifetimeSeconds,
    // The queue is the SES parser's: each letter is the SES event it failed on.
    mailOf: sesDeadLetterMail,
  });
}

/**
 * Where the dead letters and the raw mail are: the stack's queue and bucket in AWS; locally the
 * queue `npm run start:stack` announced in DATA_DIR and the blob directory its S3 stand-in serves.
 */
async function deadLetterSource(environment: NodeJS.ProcessEnv, local: boolean) {
  const queueUrl = environment.DEAD_LETTER_QUEUE_URL;
  const bucket = environment[variables.blobBucket];
  if (queueUrl && bucket) return { blobs: new S3BlobStore(new S3Client({}), bucket), queue: new SqsDeadLetterQueue(new SQSClient({}), queueUrl) };
  const dataDir = environment.DATA_DIR || defaultDataDir;
  const announced = local ? await announcedDeadLetterQueue(dataDir) : undefined;
  if (!announced) {
    throw new UsageError(
      `mail redrive needs the dead-letter queue: against AWS give --stack NAME (or DEAD_LETTER_QUEUE_URL and ${variables.blobBucket}); locally it reads the queue of the npm run start:stack running on DATA_DIR (npm start has none)`,
    );
  }
  const client = new SQSClient({ endpoint: announced.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  return { blobs: new DirectoryBlobStore(join(dataDir, 'blobs')), queue: new SqsDeadLetterQueue(client, announced.queueUrl) };
}

/** Runs one operator command; returns the process exit code. */
export async function runAdmin(argv: string[], environment: NodeJS.ProcessEnv): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        plan: { type: 'string' },
        env: { type: 'string' },
        account: { type: 'string' },
        key: { type: 'string' },
        'key-id': { type: 'string' },
        stack: { type: 'string' },
        requests: { type: 'string' },
        format: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage}\n`);
    return 2;
  }
  const [noun, verb, ...positionals] = parsed.positionals;
  const command = commands[`${noun} ${verb}`];
  if (parsed.values.help || !command) {
    process.stderr.write(`${usage}\n`);
    return parsed.values.help ? 0 : 2;
  }
  const { help: _help, stack, ...values } = parsed.values;
  let connection;
  try {
    checkCommandLine(`${noun} ${verb}`, command.line, values, positionals);
    const target = stack ? { ...environment, ...(await stackEnvironment(stack)) } : environment;
    connection = await connect(target);
    const result = await command.run(connection.stores, { positionals, values, environment: target, local: connection.target !== 'aws', connection });
    process.stdout.write(result instanceof ShellText ? result.text : `${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n${usage}\n`);
      return 2;
    }
    const code = error instanceof ServiceError ? error.code : 'internal_error';
    process.stderr.write(`${JSON.stringify({ error: { code, message: (error as Error).message } })}\n`);
    return 1;
  } finally {
    await connection?.close();
  }
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  runAdmin(process.argv.slice(2), process.env).then((code) => {
    process.exitCode = code;
  });
}
