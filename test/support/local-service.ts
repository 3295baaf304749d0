import { randomUUID } from 'node:crypto';
import { openAccount } from '../../lambdas/core/accounts';
import type { EmailResource } from '../../lambdas/core/emails';
import type { Plan } from '../../lambdas/core/plans';
import type { LocalConfig } from '../../local/config';
import type { LocalOverrides, LocalRuntime } from '../../local/start-local';
import { testRuntime } from './test-runtime';
import { contractFetch } from './contract';
import { memoryLogger } from './memory-logger';
import { testConfig } from './test-config';
import { TestClock } from './test-clock';

/** The time a test moves instead of sleeping: the local runtime's injected clock, or the stack's functions'. */
export interface MovableClock {
  now(): Date;
  advance(ms: number): void;
  sleep(ms: number): Promise<void>;
}

export interface TestService {
  runtime: LocalRuntime;
  clock: MovableClock;
  logger: ReturnType<typeof memoryLogger>;
  /**
   * Resolves once the mail received so far has been processed. On `npm start` at once: its intake
   * answers 250 after the mail is stored. On the stack as in AWS, SES answers 250 once the raw mail
   * is in the bucket and invokes the parser asynchronously: this waits for those invocations (their
   * retries and dead letters included), as a client polls until the message is listed.
   */
  settled(): Promise<void>;
  /** An HTTP request to the running API (once the mail received so far is processed: `settled`), with a bearer key when given; the answer is checked against the OpenAPI document. */
  request(path: string, options?: { key?: string; headers?: Record<string, string>; method?: string; body?: string }): Promise<Response>;
  /** Opens an account on a plan and returns its id and first key. */
  account(plan?: Plan, env?: string): Promise<{ accountId: string; apiKey: string; keyId: string }>;
  /** The account's remaining allowance, read from storage (not through the API). */
  remaining(accountId: string): Promise<number>;
  /** Opens an account (paid unless told) and reserves the address `localPart` for it. */
  inbox(
    localPart: string,
    plan?: Plan,
  ): Promise<{ accountId: string; apiKey: string; keyId: string; email: EmailResource }>;
  /** POST /v1/emails with a JSON body and an Idempotency-Key. */
  createEmail(key: string, body: unknown, idempotencyKey?: string, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}


/**
 * Starts the service a contract suite tests, on the runtime of its project (test-runtime.ts).
 * `npm start`'s: the real local runtime (dynalite, HTTP front, SMTP intake) on free loopback
 * ports, through the same `startLocal` that `npm start` calls, with a test clock. The sweeper
 * runs only when a test calls `runtime.sweep()`: a sweep on the 30-second timer would land at a
 * moment of the test's choosing (the fault injection numbers every storage call). Under the
 * permission check it records every call (support/call-recording.ts).
 * The stack's (stack-service.ts): the synthesized stack, every function from its bundle; the
 * runtime overrides reach `npm start`'s clients only, so the tests that use them are declared
 * `onlyOn('npm start', ...)`.
 * Each runtime's modules load only on its own project: every suite loaded both, and on the
 * stack's project `npm start`'s own modules (its mail intake and parser among them) cost about a
 * third of a second of processor time per suite for code that never ran.
 */
export async function startTestService(
  overrides: Partial<LocalConfig> = {},
  runtimeOverrides: Pick<LocalOverrides, 'instrumentDynamoDb' | 'wrapBlobs' | 'backgroundSweep'> = {},
): Promise<TestService> {
  const logger = memoryLogger();
  if (testRuntime === 'start:stack') {
    const { startStackTestRuntime } = require('./stack-service') as typeof import('./stack-service');
    const { runtime, clock, settled } = await startStackTestRuntime({ ...testConfig, ...overrides });
    return testService(runtime, clock, logger, settled);
  }
  const { startLocal } = require('../../local/start-local') as typeof import('../../local/start-local');
  const { withCallRecording } = require('./call-recording') as typeof import('./call-recording');
  const clock = new TestClock();
  const runtime = await startLocal(
    { ...testConfig, ...overrides },
    { clock, logger, backgroundSweep: false, ...runtimeOverrides, ...withCallRecording(runtimeOverrides) },
  );
  return testService(runtime, clock, logger, async () => undefined);
}

/** The suites' requests and fixtures over a running runtime, whichever it is. */
function testService(runtime: LocalRuntime, clock: MovableClock, logger: ReturnType<typeof memoryLogger>, settled: () => Promise<void>): TestService {
  return {
    runtime,
    clock,
    logger,
    settled,
    request: async (path, options = {}) => {
      await settled();
      return contractFetch(`${runtime.apiUrl}${path}`, {
        method: options.method ?? 'GET',
        headers: { ...(options.key ? { Authorization: `Bearer ${options.key}` } : {}), ...options.headers },
        body: options.body,
      });
    },
    account: (plan = 'free', env = 'local') => openAccount({ plan, env }, runtime.services),
    remaining: async (accountId) => (await runtime.services.accounts.get(accountId))!.allowance.remaining,
    inbox: async (localPart, plan = 'paid') => {
      const account = await openAccount({ plan, env: 'local' }, runtime.services);
      const created = await contractFetch(`${runtime.apiUrl}/v1/emails`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${account.apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': `idem-${randomUUID()}` },
        body: JSON.stringify({ local_part: localPart }),
      });
      return { ...account, email: ((await created.json()) as { data: EmailResource }).data };
    },
    createEmail: (key, body, idempotencyKey = `idem-${randomUUID()}`, headers = {}) =>
      contractFetch(`${runtime.apiUrl}/v1/emails`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': idempotencyKey,
          ...headers,
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    close: () => runtime.close(),
  };
}
