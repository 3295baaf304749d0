import { createDocumentClient } from '../../lambdas/adapters/dynamodb/document-client';
import { tableNamesFrom } from '../../lambdas/adapters/dynamodb/table-definitions';
import { createServices, type ApiServices } from '../../lambdas/composition/services';
import { functionEnvironmentNames } from '../../lambdas/composition/function-environment';
import { emailLifetimeSeconds, messageLifetimeSeconds } from '../../lambdas/core/lifetimes';
import { addDomain } from '../../lambdas/core/domains';
import { jsonLogger } from '../../lambdas/adapters/json-logger';
import type { Logger } from '../../lambdas/core/ports/logger';
import type { BlobStore } from '../../lambdas/core/ports/blob-store';
import { systemClock } from '../../lambdas/adapters/system-clock';
import type { Clock } from '../../lambdas/core/ports/clock';
import { claimDataDir } from '../claim-data-dir';
import type { LocalConfig } from '../config';
import { announceDeadLetterQueue, announceEndpoint, withdrawDeadLetterQueue, withdrawEndpoint } from '../endpoint-file';
import { startSmtpIntake } from '../smtp-intake';
import type { EvaluatedCall, HeldCall } from './aws-endpoints';
import { ensureCloudAssembly } from './cloud-assembly';
import { eventInvocations } from './event-invocations';
import type { FunctionClock } from './function-clock';
import { startFunctionHosts, type FunctionHosts, type RunningFunction } from './function-hosts';
import { receiptRuleRunner } from './receipt-rule-runner';
import { s3StandIn } from './s3-stand-in';
import { startScheduleRunner } from './schedule-runner';
import { startStackGateway } from './stack-gateway';
import { startQueues } from './sqs-queues';
import { ignoredSettings } from './stack-settings';
import { startStackStorage } from './stack-storage';
import { apiFunctions, readGatewayApi, unservedParts } from './gateway-template';
import { localResolver, nameTablesLocally, publishedSupportContact, readStack, receiptRules, resourcePolicies, schedules, stackFunctions, stackQueues, type Template } from './template';

export type { RunningFunction } from './function-hosts';

export interface StackOptions {
  /** A built cloud assembly to run; by default the app is synthesized (or a fresh one reused). */
  cdkOut?: string;
  /** Edits the template before it runs: a test removes a grant here. */
  editTemplate?: (template: Template) => void;
  /**
   * A test's clock for the function threads (expiry without sleeping); absent: the system clock.
   * With it, EventBridge's schedule runs when the test runs it (`sweep`), not on real time.
   */
  clock?: FunctionClock;
  /** A test's stand-in for a service that does not answer: an allowed call of a function waits for the promise this returns. */
  holdCall?: (call: HeldCall) => Promise<void> | undefined;
  /** A test's clock for the gateway's throttle buckets and authorizer caches; absent: the system clock. */
  gatewayClock?: Clock;
  /** Where the stack's own lines go (a test keeps them); absent: JSON lines on stderr at the configured level. */
  logger?: Logger;
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
 * the receiving domains, the support contact the console's config.json publishes when one is set,
 * and the message and reservation lifetimes when they are not the contract's (so that the usual
 * run shares one synthesis).
 */
export function synthesisContext(config: Pick<LocalConfig, 'env' | 'domains' | 'messageTtlSeconds' | 'emailTtlSeconds' | 'supportContact'>): Record<string, string> {
  return {
    stage: config.env,
    domains: config.domains.join(','),
    ...(config.supportContact !== undefined ? { supportContact: config.supportContact } : {}),
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
  const logger = options.logger ?? jsonLogger(config.logLevel, (line) => process.stderr.write(`${line}\n`));
  // What npm start takes and the deployed stack has no place for is named, not silently dropped.
  for (const setting of ignoredSettings(config)) logger.warn('setting not applied by start:stack', { variables: setting.variables.join(', '), reason: setting.reason });
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
  await claimDataDir(config.dataDir);

  // Which functions serve the stack: the API's (methods and authorizers), the receipt rules' and the schedules'.
  const rules = receiptRules(template);
  const scheduled = schedules(template);
  const functions = stackFunctions(template, cdkOut, [
    ...apiFunctions(api),
    ...rules.flatMap((rule) => rule.actions.flatMap((action) => (action.kind === 'lambda' ? [action.functionId] : []))),
    ...scheduled.map((schedule) => schedule.functionId),
  ]);
  const storage = await startStackStorage(template, config, servicesClock);
  const blobBucket = functions.find((fn) => fn.environment[functionEnvironmentNames.blobBucket])?.environment[functionEnvironmentNames.blobBucket] ?? '';
  const policies = resourcePolicies(template);
  const templateQueues = stackQueues(template);
  const queues = await startQueues(templateQueues);

  // The domains the operator adds, as `npm run admin` would.
  const tableNames = tableNamesFrom(functions[0]?.environment ?? {});
  if ('missing' in tableNames) throw new Error(`the template's functions lack table names: ${tableNames.missing.join(', ')}`);
  // The operator's clock is the functions' own: a test moving their time moves what it reads with it.
  const operator = createServices(
    { client: createDocumentClient({ endpoint: storage.dynamodbEndpoint, requestHandler: storage.dynamodbChannel }), env: config.env, tableNames, cursorSecret: storage.cursorSecret, logLevel: config.logLevel },
    { clock: servicesClock },
  );
  for (const domain of config.domains) await addDomain(domain, operator);

  const calls: EvaluatedCall[] = [];
  const record = (call: EvaluatedCall) => void calls.push(call);
  // The functions start once the console's issuer, which stands in for the user pool, is known: the gateway finds them late.
  let started: FunctionHosts | undefined;
  const host = (logicalId: string) => {
    if (!started) throw new Error(`function ${logicalId} is not running`);
    return started.host(logicalId);
  };
  const support = publishedSupportContact(template, cdkOut);
  const gateway = await startStackGateway(api, {
    config,
    ...(support !== undefined ? { support } : {}),
    invoke: (logicalId, event, stream) => host(logicalId).invoke(event, stream),
    clock: operator.clock,
    ...(options.gatewayClock ? { gatewayClock: options.gatewayClock } : {}),
  });
  const s3 = s3StandIn(blobBucket, storage.blobs, storage.blobRoot);
  const fleet = await startFunctionHosts(functions, {
    backends: { dynamodb: storage.dynamodbEndpoint, dynamodbChannel: storage.dynamodbChannel, s3, secrets: storage.secrets, sqs: queues, resourcePolicy: policies, ...(options.holdCall ? { hold: options.holdCall } : {}) },
    record,
    logger,
    logLevel: config.logLevel,
    identity: { issuer: gateway.issuer, clientId: gateway.clientId },
    ...(options.clock ? { clock: options.clock } : {}),
  });
  started = fleet;

  // Lambda's Event invocations: retried, then sent to the dead-letter queue with the function's role.
  const events = eventInvocations({
    host,
    logger,
    deadLetter: async (fn, targetArn, letter) => {
      const decision = await fleet.judge(fn.logicalId, { action: 'sqs:SendMessage', resource: targetArn, context: {} });
      if (decision.result !== 'allowed') throw new Error(decision.reason);
      await queues.send(targetArn, letter.body, letter.attributes);
    },
  });
  const invoke = (functionId: string, event: unknown) => host(functionId).invoke(event);
  const queue = (functionId: string, event: unknown) => events.invoke(functionId, event);
  // SES: the receipt rules, in order, for the recipients each matches.
  const resolver = localResolver(template);
  const smtp = await startSmtpIntake<string>({
    host: config.host,
    port: config.smtpPort,
    ...receiptRuleRunner({
      rules,
      resourcePolicy: policies,
      blobs: storage.blobs,
      clock: servicesClock,
      logger,
      record,
      invoke,
      queue,
      functionArn: (functionId) => resolver.arnOf(functionId),
    }),
  });
  // EventBridge: the scheduled sweeper, as its rule's rate says; under a test's clock, when the test runs it.
  const schedule = startScheduleRunner({ schedules: scheduled, clock: servicesClock, queue, invoke, onRealTime: options.clock === undefined });

  // The operator CLI's `mail redrive` finds the receipt rule's dead-letter queue through the data directory.
  const parsers = new Set(rules.flatMap((rule) => rule.actions.flatMap((action) => (action.kind === 'lambda' && action.invocationType === 'Event' ? [action.functionId] : []))));
  const deadLetterArn = functions.find((fn) => parsers.has(fn.logicalId))?.asynchronous.deadLetterTargetArn;
  const deadLetterUrl = deadLetterArn && queues.localUrl(deadLetterArn);
  if (config.dataDir) {
    await announceEndpoint(config.dataDir, storage.dynamodbEndpoint);
    if (deadLetterUrl) await announceDeadLetterQueue(config.dataDir, { endpoint: queues.endpoint, queueUrl: deadLetterUrl });
  }

  return {
    apiUrl: gateway.url,
    consoleUrl: `${gateway.url}/console/`,
    issuer: gateway.issuer,
    smtpPort: smtp.port,
    dynamodbEndpoint: storage.dynamodbEndpoint,
    receiptRuleDomains: [...new Set(rules.flatMap((rule) => rule.recipients))],
    services: operator,
    blobs: storage.blobs,
    calls,
    queues: { endpoint: queues.endpoint, urls: Object.fromEntries(templateQueues.map((templateQueue) => [templateQueue.name, queues.localUrl(templateQueue.arn)!])) },
    get functions() {
      return fleet.snapshot();
    },
    sweep: () => schedule.runNow(),
    settled: () => events.settled(),
    close: async () => {
      schedule.stop();
      await Promise.all([smtp.close(), gateway.close()]);
      await events.settled().catch(() => undefined);
      await fleet.close();
      await queues.close();
      if (config.dataDir) await Promise.all([withdrawEndpoint(config.dataDir), withdrawDeadLetterQueue(config.dataDir)]);
      await storage.close();
    },
  };
}
