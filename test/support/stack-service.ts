import type { LocalConfig } from '../../local/config';
import type { LocalRuntime } from '../../local/start-local';
import { ensureCloudAssembly } from '../../local/stack/cloud-assembly';
import { FunctionClock } from '../../local/stack/function-clock';
import { startStack, synthesisContext } from '../../local/stack/start-stack';
import type { SweepResult } from '../../lambdas/mail/sweep-expired';
import { stackContext, stackDomains } from './stack-context';
import { testClockStart } from './test-clock';

/**
 * The stack as it deploys (`npm run start:stack`) behind the interface a contract suite reads of
 * `npm start`'s runtime: every function from its bundle with its template environment, the API
 * from the template, SES from the receipt rules, IAM judged on every call. One synthesis serves
 * every suite, so a suite can ask only for what it holds: its domains and lifetimes.
 */
export async function startStackTestRuntime(config: LocalConfig): Promise<{ runtime: LocalRuntime; clock: FunctionClock; settled: () => Promise<void> }> {
  const outside = config.domains.filter((domain) => !stackDomains.includes(domain));
  if (outside.length > 0) throw new Error(`start:stack's receipt rules cover ${stackDomains.join(', ')}: a suite on it cannot receive for ${outside.join(', ')}`);
  const wanted = synthesisContext({ ...config, domains: stackDomains });
  if (JSON.stringify(wanted) !== JSON.stringify(stackContext)) {
    throw new Error(`start:stack runs one synthesis (${JSON.stringify(stackContext)}): a suite asking for ${JSON.stringify(wanted)} runs on npm start only`);
  }
  if (config.shortWindow) throw new Error("start:stack runs the contract's short-window limits: a suite raising them runs on npm start only");
  const cdkOut = await ensureCloudAssembly(stackContext, (line) => process.stdout.write(`${line}\n`));
  // The functions' clock, which the gateway's throttle buckets and authorizer caches follow too:
  // moving it past a lifetime moves every part of the stack, as waiting would. It stands at the
  // moment `npm start`'s test clock starts at, and moves only when the test moves it, as that one.
  const clock = new FunctionClock();
  clock.set(new Date(testClockStart));
  const stack = await startStack(config, { cdkOut, clock, gatewayClock: clock });
  const runtime: LocalRuntime = {
    apiUrl: stack.apiUrl,
    consoleUrl: stack.consoleUrl,
    issuer: stack.issuer,
    httpPort: Number(new URL(stack.apiUrl).port),
    smtpPort: stack.smtpPort,
    dynamodbEndpoint: stack.dynamodbEndpoint,
    services: { ...stack.services, blobs: stack.blobs },
    // The scheduled sweeper, invoked once as EventBridge invokes it: with the function's own budget.
    sweep: async (run) => {
      if (run) throw new Error('start:stack runs the sweeper as EventBridge does, with its own limits: a run with chosen limits is npm start only');
      const [result] = (await stack.sweep()) as SweepResult[];
      return result!;
    },
    close: () => stack.close(),
  };
  return { runtime, clock, settled: () => stack.settled() };
}
