import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../lambdas/core/ports/logger';
import { callFromCommand, evaluate, type Decision, type IamRequest } from '../iam';
import { jsonError, overTls, queryError, serviceBackends, type ServiceStandIns } from './service-backends';
import { localNaming, type StackFunction } from './template';

export { overTls } from './service-backends';

/** One AWS call as the endpoints saw it, after evaluation. */
export interface EvaluatedCall {
  function: string;
  service: string;
  action: string;
  resource: string;
  decision: 'allowed' | 'denied' | 'unmappable';
}

export interface AwsBackends extends ServiceStandIns {
  /** A test's stand-in for a service that does not answer: an allowed call waits for the promise this returns. */
  hold?: (call: HeldCall) => Promise<void> | undefined;
}

export interface HeldCall {
  function: string;
  action: string;
  resource: string;
}

export interface FunctionEndpoint {
  url: string;
  /** How many HTTP requests reached this endpoint: each was judged (or refused as unmappable). */
  readonly requests: number;
  /** Judges one request of this function as a call of it would be (recorded and logged): what Lambda sends with the function's role uses it. */
  judge(request: IamRequest): Promise<Decision>;
  close(): Promise<void>;
}

/** The sentence AWS ends an access-denied message with, by where the decision came from. */
function deniedBecause(action: string, decision: Extract<Decision, { result: 'denied' }>): string {
  if (decision.explicitDenyIn === 'resource-based') return 'with an explicit deny in a resource-based policy';
  if (decision.explicitDenyIn === 'identity-based') return 'with an explicit deny in an identity-based policy';
  return `because no identity-based policy allows the ${action} action`;
}

/** The signing service of a SigV4 request: which AWS service the SDK meant to call. */
function signedService(req: IncomingMessage): string | undefined {
  return /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1];
}

/**
 * The AWS endpoints one function's SDK calls reach (`AWS_ENDPOINT_URL_*` in its environment): a
 * port of its own, so every call is known to come from that function. Each call is mapped onto
 * the IAM actions and resources AWS evaluates, evaluated against the function's role and the
 * resource's own policy, logged, and either answered as AWS answers a denied call or passed on
 * to the local service.
 */
export async function startFunctionEndpoint(
  fn: StackFunction,
  backends: AwsBackends,
  record: (call: EvaluatedCall) => void,
  logger: Logger,
): Promise<FunctionEndpoint> {
  const principal = `arn:aws:sts::${localNaming.account}:assumed-role/${fn.role.roleArn.split('/').pop()}/${fn.name}`;
  // The services this endpoint answers for, by signing name.
  const services = serviceBackends(fn, backends);
  let requests = 0;
  const judge = async (request: IamRequest): Promise<Decision> => {
    const decision = await evaluate(fn.role, overTls(request), backends.resourcePolicy(request.resource));
    record({ function: fn.name, service: request.action.split(':')[0]!, action: request.action, resource: request.resource, decision: decision.result });
    if (decision.result === 'allowed') logger.info('aws call allowed', { function: fn.name, action: request.action, resource: request.resource });
    else {
      logger.error(decision.result === 'denied' ? 'aws call denied' : 'aws call not evaluated', {
        function: fn.name,
        action: request.action,
        resource: request.resource,
        reason: decision.reason,
      });
    }
    return decision;
  };
  const server: Server = createServer((req, res) => {
    requests += 1;
    serve(req, res).catch((error: Error) => {
      logger.error('aws endpoint failed', { function: fn.name, error: error.message });
      if (!res.headersSent) jsonError(res, 500, 'InternalFailure', 'local endpoint failure');
      else res.destroy();
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://aws.local');
    const service = signedService(req) ?? 'unknown';
    const backend = services.get(service);
    const call = backend?.read(req, url, body);
    if (call?.refusal) return call.refusal(res);
    // A call that cannot be evaluated fails as a service fault, in the protocol the SDK reads.
    const queryProtocol = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const failure = (message: string) =>
      backend?.failure ? backend.failure(res, message) : queryProtocol ? queryError(res, 500, 'InternalFailure', message) : jsonError(res, 500, 'InternalFailure', message);
    const notEvaluated = (action: string, reason: string) => {
      record({ function: fn.name, service, action, resource: '', decision: 'unmappable' });
      logger.error('aws call not evaluated', { function: fn.name, reason });
      return failure(`the local stack cannot evaluate this call: ${reason}`);
    };
    if (!backend || !call?.command) return notEvaluated('', `${service} ${req.method} ${url.pathname}${url.search} is no call the local stack serves`);
    const mapped = callFromCommand(backend.sdkId, call.command, call.input, localNaming);
    if (mapped.kind === 'unmappable') return notEvaluated(call.command, mapped.reason);
    // A DeleteObjects is judged key by key, as S3 does: a refused key is answered in the result, the others are deleted.
    const refusedKeys = new Set<string>();
    for (const [index, request] of mapped.requests.entries()) {
      const decision = await judge(request);
      if (decision.result === 'allowed') continue;
      if (decision.result === 'unmappable') return failure(`the local stack cannot evaluate this call: ${decision.reason}`);
      if (call.perKey) {
        refusedKeys.add(call.perKey[index]!);
        continue;
      }
      return backend.denied(res, `User: ${principal} is not authorized to perform: ${request.action} on resource: ${request.resource} ${deniedBecause(request.action, decision)}`);
    }
    for (const request of mapped.requests) await backends.hold?.({ function: fn.name, action: request.action, resource: request.resource });
    return call.answer({ req, res, url, body, requests: mapped.requests, refusedKeys });
  }

  // AWS's endpoints keep an idle connection open far longer than Node's 5 s default. Closed sooner,
  // a function's pooled socket can meet the close as it sends, the SDK retries on a new one, and a
  // request the function counted as sent never arrives here: keep idle sockets for a function's
  // longest life (Lambda's 15-minute time-out).
  server.keepAliveTimeout = 15 * 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    judge,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
