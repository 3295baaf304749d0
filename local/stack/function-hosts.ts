import type { ResourceLimits } from 'node:worker_threads';
import { functionEnvironmentNames } from '../../lambdas/composition/function-environment';
import type { LogLevel } from '../../lambdas/adapters/json-logger';
import type { Logger } from '../../lambdas/core/ports/logger';
import type { Decision, IamRequest } from '../iam';
import { startFunctionEndpoint, type AwsBackends, type EvaluatedCall, type FunctionEndpoint } from './aws-endpoints';
import type { FunctionClock } from './function-clock';
import { FunctionHost } from './function-host';
import { localNaming, type StackFunction } from './template';

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

export interface FunctionHosts {
  /** The host of a function of the template, which starts its thread at the first invocation. */
  host(logicalId: string): FunctionHost;
  /** Judges a request as a call of the function would be (what Lambda sends for it with its role). */
  judge(logicalId: string, request: IamRequest): Promise<Decision>;
  /** Each function as it stands now, by logical id. */
  snapshot(): Map<string, RunningFunction>;
  close(): Promise<void>;
}

/**
 * The template's functions as Lambda runs them: each with an AWS endpoint of its own (every call
 * judged against its role) and a host that runs its bundled handler with the template's
 * environment, resolved to the local resources, plus what the Lambda runtime adds.
 */
export async function startFunctionHosts(
  functions: StackFunction[],
  options: {
    backends: AwsBackends;
    record: (call: EvaluatedCall) => void;
    logger: Logger;
    logLevel: LogLevel;
    /** The console's issuer and client, standing in for the user pool the console functions check. */
    identity: { issuer: string; clientId: string };
    /** A test's clock for the function threads; absent: the system clock. */
    clock?: FunctionClock;
  },
): Promise<FunctionHosts> {
  const { logger } = options;
  const endpoints = new Map<string, FunctionEndpoint>();
  const hosts = new Map<string, FunctionHost>();
  for (const fn of functions) {
    const endpoint = await startFunctionEndpoint(fn, options.backends, options.record, logger);
    endpoints.set(fn.logicalId, endpoint);
    const environment = {
      ...fn.environment,
      ...(fn.environment[functionEnvironmentNames.oidcIssuer] !== undefined
        ? { [functionEnvironmentNames.oidcIssuer]: options.identity.issuer, [functionEnvironmentNames.oidcClientId]: options.identity.clientId }
        : {}),
      [functionEnvironmentNames.logLevel]: options.logLevel,
      ...lambdaRuntimeEnvironment(fn.name, fn.memoryMb, endpoint.url),
    };
    // Each cold start is reported as Lambda's REPORT line reports it: the init phase's duration.
    const reportInit = (durationMs: number) => logger.info('function initialized', { function: fn.name, init_duration_ms: durationMs });
    hosts.set(fn.logicalId, new FunctionHost(fn, () => environment, { ...(options.clock ? { clock: options.clock } : {}), onInit: reportInit }));
  }
  const host = (logicalId: string) => {
    const found = hosts.get(logicalId);
    if (!found) throw new Error(`function ${logicalId} is not running`);
    return found;
  };
  return {
    host,
    judge: (logicalId, request) => endpoints.get(logicalId)!.judge(request),
    snapshot: () =>
      new Map(
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
      ),
    close: async () => {
      await Promise.all([...hosts.values()].map((fnHost) => fnHost.close()));
      await Promise.all([...endpoints.values()].map((endpoint) => endpoint.close()));
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
