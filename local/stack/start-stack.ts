import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { ResourceLimits } from 'node:worker_threads';
import { CreateTableCommand, DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import { DirectoryBlobStore } from '../../lambdas/adapters/blobs/directory-blob-store';
import type { BlobStore } from '../../lambdas/core/mail-ports';
import { createDocumentClient } from '../../lambdas/adapters/dynamodb/document-client';
import { tableNamesFrom } from '../../lambdas/adapters/dynamodb/table-definitions';
import { createServices, type ApiServices } from '../../lambdas/composition/services';
import { functionEnvironmentNames } from '../../lambdas/composition/function-environment';
import { emailLifetimeSeconds, messageLifetimeSeconds } from '../../lambdas/core/lifetimes';
import { addDomain } from '../../lambdas/core/domains';
import { jsonLogger } from '../../lambdas/core/logger';
import { oidcIdentityVerifier, type IdentityVerifier } from '../../lambdas/adapters/oidc/identity-token-verifier';
import { createLocalJWKSet } from 'jose';
import { systemClock, type Clock } from '../../lambdas/core/clock';
import { startApiGateway } from '../api-gateway';
import type { LocalConfig } from '../config';
import { startConsoleFront, type ConsoleFront } from '../console-front';
import { loadCursorSecret } from '../cursor-secret';
import { announceDeadLetterQueue, announceEndpoint, runningEndpoint, withdrawDeadLetterQueue, withdrawEndpoint } from '../endpoint-file';
import { startLocalDynamoDb } from '../local-dynamodb';
import { maxMessageBytes, smtpError, startSmtpIntake } from '../smtp-intake';
import { evaluateServiceRequest } from '../iam';
import { overTls, startFunctionEndpoint, type EvaluatedCall, type FunctionEndpoint, type HeldCall } from './aws-endpoints';
import { ensureCloudAssembly } from './cloud-assembly';
import { eventInvocations } from './event-invocations';
import type { FunctionClock } from './function-clock';
import { FunctionHost } from './function-host';
import { s3StandIn } from './s3-stand-in';
import { startQueues } from './sqs-queues';
import { apiFunctions, readGatewayApi, servedApi, unservedParts, userPoolCheck } from './gateway-template';
import {
  localNaming,
  localResolver,
  nameTablesLocally,
  readStack,
  receiptRules,
  resourcePolicies,
  schedules,
  stackFunctions,
  stackQueues,
  tableInputs,
  type Template,
} from './template';
import { newAwsId, newSesMessageId } from '../../lambdas/core/ids';

export interface StackOptions {
  /** A built cloud assembly to run; by default the app is synthesized (or a fresh one reused). */
  cdkOut?: string;
  /** Edits the template before it runs: a test removes a grant here. */
  editTemplate?: (template: Template) => void;
  /** A test's clock for the function threads (expiry without sleeping); absent: the system clock. */
  clock?: FunctionClock;
  /** A test's stand-in for a service that does not answer: an allowed call of a function waits for the promise this returns. */
  holdCall?: (call: HeldCall) => Promise<void> | undefined;
  /** A test's clock for the gateway's throttle buckets and authorizer caches; absent: the system clock. */
  gatewayClock?: Clock;
}

export interface RunningFunction {
  name: string;
  environment: Record<string, string>;
  invocations: number;
  /** How many execution environments it had: one per cold start, a new one after a time-out. */
  environments: number;
  /** The heap limits its thread reported it runs under, once it has started. */
  resourceLimits: ResourceLimits | undefined;
  /** Its last cold start's init duration (thread start to handler loaded), once it has started. */
  initDurationMs: number | undefined;
  outbound: { requests: Record<string, number>; connections: string[] };
  endpointRequests: number;
}

export interface StackRuntime {
  apiUrl: string;
  consoleUrl: string;
  issuer: string;
  smtpPort: number;
  /** dynalite's endpoint, where the template's tables are. */
  dynamodbEndpoint: string;
  /** The recipients of the template's receipt rules: the only domains mail reaches, as in AWS. */
  receiptRuleDomains: string[];
  /** The operator's view of the storage (as `npm run admin` has it), not the functions'. */
  services: ApiServices;
  /** The blob bucket as the operator sees it: the directory the S3 stand-in serves. */
  blobs: BlobStore;
  /** Every AWS call the functions made (and SES and Lambda made for them), as evaluated. */
  calls: EvaluatedCall[];
  /** The template's SQS queues (fauxqs): its endpoint, and each queue's URL there by name. */
  queues: { endpoint: string; urls: Record<string, string> };
  /**
   * The functions that run, by logical id: their environment as given, how often each was invoked,
   * what each sent over the network (by `host:port`) and how many requests its AWS endpoint judged.
   */
  functions: Map<string, RunningFunction>;
  /** Runs the scheduled sweeper once now. */
  sweep(): Promise<unknown>;
  /** Resolves once every asynchronous (Event) invocation so far has finished, its retries and dead letter included. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What of the configuration the template must carry, as the app's context (bin/app.ts): the stage,
 * the receiving domains, and the message and reservation lifetimes when they are not the
 * contract's (so that the usual run shares one synthesis).
 */
export function synthesisContext(config: Pick<LocalConfig, 'env' | 'domains' | 'messageTtlSeconds' | 'emailTtlSeconds'>): Record<string, string> {
  return {
    stage: config.env,
    domains: config.domains.join(','),
    ...(config.messageTtlSeconds !== messageLifetimeSeconds ? { messageTtlSeconds: String(config.messageTtlSeconds) } : {}),
    ...(config.emailTtlSeconds !== emailLifetimeSeconds ? { emailTtlSeconds: String(config.emailTtlSeconds) } : {}),
  };
}

/**
 * The stack as synthesized, on one machine (DESIGN: local operator interface): every function
 * from its bundled asset with its template environment, API Gateway from the template's methods,
 * SES from its receipt rules, and every AWS call of a function evaluated against its role.
 */
export async function startStack(config: LocalConfig, options: StackOptions = {}): Promise<StackRuntime> {
  const logger = jsonLogger(config.logLevel, (line) => process.stderr.write(`${line}\n`));
  // The time of the AWS services the stack stands in for (SES's receipt, EventBridge's schedule):
  // the functions' own, so that a test moving their clock moves the events' times with it.
  const servicesClock: Clock = options.clock ?? systemClock;
  const cdkOut = options.cdkOut ?? (await ensureCloudAssembly(synthesisContext(config), (line) => console.log(line)));
  const template = readStack(cdkOut);
  nameTablesLocally(template);
  options.editTemplate?.(template);
  // Before anything starts: a part of the template's API the local gateway does not emulate is refused, named.
  const api = readGatewayApi(template);
  const unserved = unservedParts(api);
  if (unserved.length > 0) throw new Error(`the template's API has what the local gateway does not emulate:\n  ${unserved.join('\n  ')}`);
  if (config.dataDir) {
    await mkdir(config.dataDir, { recursive: true });
    const running = await runningEndpoint(config.dataDir);
    if (running) throw new Error(`another local service is using ${config.dataDir} (its DynamoDB answers at ${running})`);
  }

  // Storage: the template's tables in dynalite, its bucket over the blob directory, its secret.
  const dynamodb = await startLocalDynamoDb({ path: config.dataDir && join(config.dataDir, 'dynamodb') });
  const admin = new DynamoDBClient({ endpoint: dynamodb.endpoint, region: localNaming.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  for (const input of tableInputs(template)) {
    await admin.send(new CreateTableCommand(input as never)).catch((error: Error) => {
      if (!(error instanceof ResourceInUseException)) throw error;
    });
  }
  const blobRoot = config.dataDir ? join(config.dataDir, 'blobs') : await mkdtemp(join(tmpdir(), 'tempmail-blobs-'));
  await mkdir(blobRoot, { recursive: true });
  // S3 stamps what it stores with AWS's time: in the stack's world, the functions' clock.
  const blobs = new DirectoryBlobStore(blobRoot, servicesClock);
  const resolver = localResolver(template);
  const cursorSecret = config.cursorSecret ?? (await loadCursorSecret(config.dataDir));
  const secrets = new Map(
    Object.entries(template.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::SecretsManager::Secret')
      .map(([logicalId]) => [resolver.arnOf(logicalId), cursorSecret] as const),
  );

  // Which functions serve the stack: the API's (methods and authorizers), the receipt rules' and the schedules'.
  const rules = receiptRules(template);
  const scheduled = schedules(template);
  const serving = [
    ...apiFunctions(api),
    ...rules.flatMap((rule) => rule.actions.flatMap((action) => (action.kind === 'lambda' ? [action.functionId] : []))),
    ...scheduled.map((schedule) => schedule.functionId),
  ];
  const functions = stackFunctions(template, cdkOut, serving);
  const blobBucket = functions.find((fn) => fn.environment[functionEnvironmentNames.blobBucket])?.environment[functionEnvironmentNames.blobBucket] ?? '';
  const s3 = s3StandIn(blobBucket, blobs, blobRoot);
  const policies = resourcePolicies(template);
  const templateQueues = stackQueues(template);
  const queues = await startQueues(templateQueues);

  // The domains the operator adds, as `npm run admin` would.
  const tableNames = tableNamesFrom(functions[0]?.environment ?? {});
  if ('missing' in tableNames) throw new Error(`the template's functions lack table names: ${tableNames.missing.join(', ')}`);
  // The operator's clock is the functions' own: a test moving their time moves what it reads with it.
  const operator = createServices(
    { client: createDocumentClient({ endpoint: dynamodb.endpoint, requestHandler: dynamodb.requestHandler }), env: config.env, tableNames, cursorSecret, logLevel: config.logLevel },
    { clock: servicesClock },
  );
  for (const domain of config.domains) await addDomain(domain, operator);

  const calls: EvaluatedCall[] = [];
  const endpoints = new Map<string, FunctionEndpoint>();
  const hosts = new Map<string, FunctionHost>();
  // The console's issuer stands in for the user pool: known once the front listens.
  let front: ConsoleFront | undefined;
  let userPool: IdentityVerifier | undefined;
  const host = (logicalId: string) => {
    const found = hosts.get(logicalId);
    if (!found) throw new Error(`function ${logicalId} is not running`);
    return found;
  };
  const gateway = await startApiGateway({
    host: config.host,
    port: config.port,
    // The API as the template declares it, each method served by the function it integrates with.
    api: servedApi(api, {
      invoke: (logicalId, event, stream) => host(logicalId).invoke(event, stream),
      verifyUserPoolToken: userPoolCheck(() => userPool!),
    }),
    ...(options.gatewayClock ? { clock: options.gatewayClock } : {}),
    front: (req, res) => (front ? front.handle(req, res) : Promise.resolve(false)),
  });
  front = await startConsoleFront({ origin: gateway.url, clock: operator.clock, ...(config.oidc ? { issuer: config.oidc } : {}) });
  const issuer = front.issuer;
  // The user pool's keys are the gateway's own in AWS: its token check never waits on a request
  // to the issuer (one that times out on a loaded machine would answer 500 for a forged token).
  const poolKeys = front.localIssuerKeys;
  userPool = oidcIdentityVerifier(
    { issuer, clientId: front.clientId },
    { clock: operator.clock, ...(poolKeys ? { issuerKeys: async () => createLocalJWKSet(await poolKeys()) } : {}) },
  );

  for (const fn of functions) {
    const endpoint = await startFunctionEndpoint(
      fn,
      { dynamodb: dynamodb.endpoint, dynamodbChannel: dynamodb.requestHandler, s3, secrets, sqs: queues, resourcePolicy: policies, ...(options.holdCall ? { hold: options.holdCall } : {}) },
      (call) => calls.push(call),
      logger,
    );
    endpoints.set(fn.logicalId, endpoint);
    const environment = {
      ...fn.environment,
      ...(fn.environment[functionEnvironmentNames.oidcIssuer] !== undefined
        ? { [functionEnvironmentNames.oidcIssuer]: issuer, [functionEnvironmentNames.oidcClientId]: front.clientId }
        : {}),
      [functionEnvironmentNames.logLevel]: config.logLevel,
      ...lambdaRuntimeEnvironment(fn.name, fn.memoryMb, endpoint.url),
    };
    // Each cold start is reported as Lambda's REPORT line reports it: the init phase's duration.
    const reportInit = (durationMs: number) => logger.info('function initialized', { function: fn.name, init_duration_ms: durationMs });
    hosts.set(fn.logicalId, new FunctionHost(fn, () => environment, { ...(options.clock ? { clock: options.clock } : {}), onInit: reportInit }));
  }

  // Lambda's Event invocations: retried, then sent to the dead-letter queue with the function's role.
  const events = eventInvocations({
    host,
    logger,
    deadLetter: async (fn, targetArn, letter) => {
      const decision = await endpoints.get(fn.logicalId)!.judge({ action: 'sqs:SendMessage', resource: targetArn, context: {} });
      if (decision.result !== 'allowed') throw new Error(decision.reason);
      await queues.send(targetArn, letter.body, letter.attributes);
    },
  });
  // SES: the receipt rules, in order, for the recipients each matches.
  const matches = (recipient: string, address: string) => {
    const domain = address.slice(address.lastIndexOf('@') + 1);
    return recipient === address || recipient === domain || (recipient.startsWith('.') && domain.endsWith(recipient));
  };
  const smtp = await startSmtpIntake<string>({
    host: config.host,
    port: config.smtpPort,
    async acceptRecipient(address) {
      const lower = address.toLowerCase();
      if (!rules.some((rule) => rule.recipients.some((recipient) => matches(recipient, lower)))) throw smtpError(550, '5.1.1 Recipient address rejected');
      return lower;
    },
    async receive(message: Readable, recipients: string[]) {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of message) {
        size += (chunk as Buffer).length;
        if (size <= maxMessageBytes) chunks.push(chunk as Buffer);
      }
      if (size > maxMessageBytes) throw smtpError(552, '5.3.4 Message too big for this system');
      const raw = Buffer.concat(chunks);
      const messageId = newSesMessageId();
      const timestamp = servicesClock.now().toISOString();
      for (const rule of rules) {
        const matched = recipients.filter((address) => rule.recipients.some((recipient) => matches(recipient, address.toLowerCase())));
        if (matched.length === 0) continue;
        let stopSet = false;
        for (const action of rule.actions) {
          if (action.kind === 's3') {
            // SES writes as itself: only the bucket's policy can allow it, for this rule of this account.
            const put = overTls({
              action: 's3:PutObject',
              resource: `${action.bucketArn}/${action.prefix}${messageId}`,
              context: { 'aws:SourceAccount': localNaming.account, 'aws:SourceArn': rule.arn },
            });
            const decision = await evaluateServiceRequest('ses.amazonaws.com', localNaming.account, put, policies(put.resource));
            calls.push({ function: 'ses.amazonaws.com', service: 's3', action: put.action, resource: put.resource, decision: decision.result });
            if (decision.result !== 'allowed') {
              logger.error('receipt rule action refused: the mail is not stored', { rule: rule.name, reason: decision.reason });
              break;
            }
            await blobs.put(`${action.prefix}${messageId}`, raw);
            continue;
          }
          if (action.kind === 'stop') {
            stopSet = true;
            break;
          }
          if (action.kind === 'unsupported') {
            logger.warn('receipt rule action not emulated', { rule: rule.name, action: action.type });
            continue;
          }
          const event = sesEvent(messageId, timestamp, matched, rule, action, resolver.arnOf(action.functionId));
          if (action.invocationType === 'Event') {
            try {
              events.invoke(action.functionId, event);
            } catch (error) {
              // Lambda refused the event (over its payload limit): the action failed, the mail stays in the bucket.
              logger.error('receipt rule function refused the event', { rule: rule.name, error: (error as Error).message });
            }
            continue;
          }
          const result = (await host(action.functionId).invoke(event).catch((error: Error) => {
            logger.error('receipt rule function failed', { rule: rule.name, error: error.message });
            return { disposition: 'STOP_RULE' };
          })) as { disposition?: string } | undefined;
          if (result?.disposition === 'STOP_RULE_SET') stopSet = true;
          if (result?.disposition === 'STOP_RULE' || stopSet) break;
        }
        if (stopSet) break;
      }
    },
  });

  // The scheduled sweeper, as its rule's rate says.
  const scheduledEvent = () => ({
    version: '0',
    id: newAwsId(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: localNaming.account,
    time: servicesClock.now().toISOString(),
    region: localNaming.region,
    resources: [],
    detail: {},
  });
  const timers = scheduled.map((schedule) => {
    const timer = setInterval(() => events.invoke(schedule.functionId, scheduledEvent()), schedule.periodSeconds * 1000);
    timer.unref();
    return timer;
  });
  // The operator CLI's `mail redrive` finds the receipt rule's dead-letter queue through the data directory.
  const parsers = new Set(rules.flatMap((rule) => rule.actions.flatMap((action) => (action.kind === 'lambda' && action.invocationType === 'Event' ? [action.functionId] : []))));
  const deadLetterArn = functions.find((fn) => parsers.has(fn.logicalId))?.asynchronous.deadLetterTargetArn;
  const deadLetterUrl = deadLetterArn && queues.localUrl(deadLetterArn);
  if (config.dataDir) {
    await announceEndpoint(config.dataDir, dynamodb.endpoint);
    if (deadLetterUrl) await announceDeadLetterQueue(config.dataDir, { endpoint: queues.endpoint, queueUrl: deadLetterUrl });
  }

  return {
    apiUrl: gateway.url,
    consoleUrl: `${gateway.url}/console/`,
    issuer,
    smtpPort: smtp.port,
    dynamodbEndpoint: dynamodb.endpoint,
    receiptRuleDomains: [...new Set(rules.flatMap((rule) => rule.recipients))],
    services: operator,
    blobs,
    calls,
    queues: { endpoint: queues.endpoint, urls: Object.fromEntries(templateQueues.map((queue) => [queue.name, queues.localUrl(queue.arn)!])) },
    get functions() {
      return new Map(
        [...hosts].map(([logicalId, fnHost]): [string, RunningFunction] => [
          logicalId,
          {
            name: fnHost.fn.name,
            environment: fnHost.environment(),
            invocations: fnHost.invocations,
            environments: fnHost.environments,
            resourceLimits: fnHost.resourceLimits,
            initDurationMs: fnHost.initDurationMs,
            outbound: { requests: Object.fromEntries(fnHost.outbound.requests), connections: [...fnHost.outbound.connections] },
            endpointRequests: endpoints.get(logicalId)!.requests,
          },
        ]),
      );
    },
    sweep: () => Promise.all(scheduled.map((schedule) => host(schedule.functionId).invoke(scheduledEvent()))),
    settled: () => events.settled(),
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      await Promise.all([smtp.close(), gateway.close()]);
      await events.settled().catch(() => undefined);
      await Promise.all([...hosts.values()].map((fnHost) => fnHost.close()));
      await Promise.all([...endpoints.values()].map((endpoint) => endpoint.close()));
      await queues.close();
      if (config.dataDir) await Promise.all([withdrawEndpoint(config.dataDir), withdrawDeadLetterQueue(config.dataDir)]);
      admin.destroy();
      await dynamodb.close();
    },
  };
}

/** What the Lambda runtime adds to a function's environment, with its AWS endpoints pointed at its own port. */
function lambdaRuntimeEnvironment(name: string, memoryMb: number, endpoint: string): Record<string, string> {
  return {
    AWS_REGION: localNaming.region,
    AWS_DEFAULT_REGION: localNaming.region,
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_ACCESS_KEY_ID: 'ASIALOCALSTACK',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SESSION_TOKEN: 'local',
    TZ: ':UTC',
    // Every service, named or not, answers at the function's own endpoint: nothing leaves unevaluated.
    AWS_ENDPOINT_URL: endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_ENDPOINT_URL_SQS: endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/** The event SES hands a Lambda action. */
function sesEvent(
  messageId: string,
  timestamp: string,
  recipients: string[],
  rule: { name: string; scanEnabled: boolean },
  action: { invocationType: string },
  functionArn: string,
) {
  const pass = { status: 'PASS' };
  return {
    Records: [
      {
        eventSource: 'aws:ses',
        eventVersion: '1.0',
        ses: {
          mail: { timestamp, source: '', messageId, destination: recipients, headersTruncated: false, headers: [], commonHeaders: {} },
          receipt: {
            timestamp,
            processingTimeMillis: 0,
            recipients,
            spamVerdict: pass,
            virusVerdict: rule.scanEnabled ? pass : { status: 'PROCESSING_FAILED' },
            spfVerdict: pass,
            dkimVerdict: pass,
            dmarcVerdict: pass,
            action: { type: 'Lambda', functionArn, invocationType: action.invocationType },
          },
        },
      },
    ],
  };
}
