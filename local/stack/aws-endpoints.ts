import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../lambdas/core/logger';
import { callFromCommand, evaluate, type Decision, type IamRequest, type MappedCommand, type ResourcePolicy } from '../iam';
import type { StorageChannel } from '../dynalite-channel';
import { s3Error, s3Operation, xmlEscape, type S3Caller, type S3Operation } from './s3-stand-in';
import { s3LimitRefusal } from './service-limits';
import { localNaming, type StackFunction } from './template';

/** One AWS call as the endpoints saw it, after evaluation. */
export interface EvaluatedCall {
  function: string;
  service: string;
  action: string;
  resource: string;
  decision: 'allowed' | 'denied' | 'unmappable';
}

export interface AwsBackends {
  /** dynalite's endpoint. */
  dynamodb: string;
  /** dynalite's thread without the loopback HTTP hop (local/dynalite-channel.ts); absent: calls go to `dynamodb`. */
  dynamodbChannel?: StorageChannel;
  s3: (req: IncomingMessage, res: ServerResponse, url: URL, operation: S3Operation, body: Buffer, caller: S3Caller) => Promise<void>;
  secrets: ReadonlyMap<string, string>;
  /** The SQS emulator, and the local URL of a queue the template's URL (or any URL ending in its name) names. */
  sqs?: { endpoint: string; localUrl(queueUrl: string): string | undefined };
  /** The resource's own policy (a bucket or queue policy of the template), evaluated beside the role. */
  resourcePolicy: (resourceArn: string) => ResourcePolicy | undefined;
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

/** The SDK service ids the endpoints serve, by SigV4 signing name. */
const serviceIds: Record<string, string> = { dynamodb: 'DynamoDB', s3: 'S3', secretsmanager: 'Secrets Manager', sqs: 'SQS' };

/** In AWS every SDK call travels over TLS: the policies' `aws:SecureTransport` conditions see it so. */
export const overTls = (request: IamRequest): IamRequest => ({ ...request, context: { ...request.context, 'aws:SecureTransport': 'true' } });

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

function jsonError(res: ServerResponse, status: number, type: string, message: string, queryError?: string): void {
  // SQS's JSON protocol also names the error as its query protocol did (`x-amzn-query-error`).
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': type, 'x-amzn-requestid': 'local', ...(queryError ? { 'x-amzn-query-error': queryError } : {}) });
  res.end(JSON.stringify({ __type: type, message, Message: message }));
}

/** An error in the AWS query protocol (SES, CloudFormation, SNS...). */
function queryError(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': 'local' });
  res.end(`<ErrorResponse><Error><Type>Receiver</Type><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error><RequestId>local</RequestId></ErrorResponse>`);
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
    const serviceId = serviceIds[service];
    let command: string | undefined;
    let input: Record<string, unknown> = {};
    let s3: S3Operation | undefined;
    // A call that cannot be evaluated fails as a service fault, in the protocol the SDK reads.
    const queryProtocol = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const failure = (message: string) =>
      service === 's3' ? s3Error(res, 500, 'InternalError', message) : queryProtocol ? queryError(res, 500, 'InternalFailure', message) : jsonError(res, 500, 'InternalFailure', message);
    if (service === 's3') {
      s3 = s3Operation(req.method ?? 'GET', url, body);
      const refusal = s3 && s3LimitRefusal(s3);
      if (refusal) return s3Error(res, refusal.status, refusal.code, refusal.message);
      if (s3) ({ command, input } = s3);
    } else if (serviceId) {
      // JSON protocols: the operation is the target's suffix, the input the body.
      command = String(req.headers['x-amz-target'] ?? '').split('.')[1];
      input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    }
    const mapped: MappedCommand =
      serviceId && command
        ? callFromCommand(serviceId, command, input, localNaming)
        : { kind: 'unmappable', reason: `${service} ${req.method} ${url.pathname}${url.search} is no call the local stack serves` };
    if (mapped.kind === 'unmappable') {
      record({ function: fn.name, service, action: command ?? '', resource: '', decision: 'unmappable' });
      logger.error('aws call not evaluated', { function: fn.name, reason: mapped.reason });
      return failure(`the local stack cannot evaluate this call: ${mapped.reason}`);
    }
    // A DeleteObjects is judged key by key, as S3 does: a refused key is answered in the result, the others are deleted.
    const perKey = s3?.command === 'DeleteObjects' ? s3.input.Delete!.Objects.map((object) => object.Key) : undefined;
    const refusedKeys = new Set<string>();
    for (const [index, request] of mapped.requests.entries()) {
      const decision = await judge(request);
      if (decision.result === 'allowed') continue;
      if (decision.result === 'unmappable') return failure(`the local stack cannot evaluate this call: ${decision.reason}`);
      if (perKey) {
        refusedKeys.add(perKey[index]!);
        continue;
      }
      const message = `User: ${principal} is not authorized to perform: ${request.action} on resource: ${request.resource} ${deniedBecause(request.action, decision)}`;
      if (service === 's3') return s3Error(res, 403, 'AccessDenied', message);
      if (service === 'sqs') return jsonError(res, 403, 'com.amazon.coral.service#AccessDeniedException', message, 'AccessDenied;Sender');
      return jsonError(res, 400, service === 'dynamodb' ? 'com.amazon.coral.service#AccessDeniedException' : 'AccessDeniedException', message);
    }
    for (const request of mapped.requests) await backends.hold?.({ function: fn.name, action: request.action, resource: request.resource });
    if (service === 'dynamodb') return backends.dynamodbChannel ? relay(req, res, url, body, backends.dynamodbChannel) : forward(req, res, backends.dynamodb, body);
    if (service === 'sqs') {
      if (!backends.sqs) return jsonError(res, 400, 'com.amazonaws.sqs#QueueDoesNotExist', 'The specified queue does not exist.', 'AWS.SimpleQueueService.NonExistentQueue;Sender');
      // The template's queue URL names the queue; the emulator knows it by its own URL.
      const localUrl = typeof input.QueueUrl === 'string' ? backends.sqs.localUrl(input.QueueUrl) : undefined;
      return forward(req, res, backends.sqs.endpoint, localUrl ? Buffer.from(JSON.stringify({ ...input, QueueUrl: localUrl })) : body);
    }
    if (s3) {
      const bucketArn = `arn:aws:s3:::${s3.input.Bucket}`;
      const mayList = async (prefix: string) =>
        (await evaluate(fn.role, overTls({ action: 's3:ListBucket', resource: bucketArn, context: { 's3:prefix': prefix } }), backends.resourcePolicy(bucketArn))).result === 'allowed';
      return backends.s3(req, res, url, s3, body, { mayList, refusedKeys });
    }
    const arn = mapped.requests[0]!.resource;
    const value = backends.secrets.get(arn);
    if (value === undefined) return jsonError(res, 400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify({ ARN: arn, Name: arn.split(':').pop(), SecretString: value, VersionId: 'local', VersionStages: ['AWSCURRENT'], CreatedDate: 0 }));
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

/** Passes an allowed call on to the local service as it came. */
async function forward(req: IncomingMessage, res: ServerResponse, endpoint: string, body: Buffer): Promise<void> {
  const target = new URL(req.url ?? '/', endpoint);
  const upstream = request(target, { method: req.method, headers: { ...req.headers, host: target.host, 'content-length': body.length } });
  upstream.end(body);
  const [answer] = (await once(upstream, 'response')) as [IncomingMessage];
  res.writeHead(answer.statusCode ?? 500, answer.headers);
  answer.pipe(res);
  await once(answer, 'end');
}

/**
 * Passes an allowed call on to a storage thread's channel as it came (method, path, headers and
 * body), and its answer back as the thread gave it: the same bytes as over HTTP, without a
 * second loopback round trip for every call a function makes.
 */
async function relay(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer, channel: StorageChannel): Promise<void> {
  const headers = Object.fromEntries(Object.entries(req.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]])));
  const { response } = await channel.handle({ method: req.method ?? 'POST', path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body });
  res.writeHead(response.statusCode, response.headers);
  res.end(response.body);
}
