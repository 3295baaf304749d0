import { once } from 'node:events';
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { StorageChannel } from '../dynalite-channel';
import { evaluate, type IamRequest, type ResourcePolicy } from '../iam';
import { s3Error, s3Operation, xmlEscape, type S3Caller, type S3Operation } from './s3-stand-in';
import { s3LimitRefusal } from './service-limits';
import type { StackFunction } from './template';

/** The local services that stand in for AWS's behind every function's endpoint. */
export interface ServiceStandIns {
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
}

/** A call IAM allowed, as its backend answers it. */
export interface AllowedCall {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  body: Buffer;
  /** The IAM requests the call was judged as. */
  requests: IamRequest[];
  /** The keys of a judged-per-key call its role may not touch (answered in the result). */
  refusedKeys: ReadonlySet<string>;
}

/** What a service's backend reads from one request, before IAM judges it. */
export interface ServiceCall {
  /** The SDK command the request is; absent: none the backend knows, so the call cannot be evaluated. */
  command?: string;
  input: Record<string, unknown>;
  /** A refusal the service answers before any judging (a limit S3 applies to the request itself). */
  refusal?: (res: ServerResponse) => void;
  /** Keys judged one by one, as S3 judges a DeleteObjects: the request of each index is the key's. */
  perKey?: string[];
  /** Passes the allowed call on to the local service and answers it. */
  answer(call: AllowedCall): Promise<void>;
}

/** One AWS service behind a function's endpoint: how its requests read, how it refuses, and who serves it locally. */
export interface ServiceBackend {
  /** The service's id in the SDK, as the IAM mapping (`callFromCommand`) names it. */
  sdkId: string;
  read(req: IncomingMessage, url: URL, body: Buffer): ServiceCall;
  /** Answers a call IAM denied, as the service answers it. */
  denied(res: ServerResponse, message: string): void;
  /** Answers a call that cannot be evaluated, as a fault of the service; absent: in the protocol the request spoke. */
  failure?(res: ServerResponse, message: string): void;
}

/**
 * The services a function's endpoint serves, by SigV4 signing name: one entry per service in
 * place of a branch per service at every step, so that a service is added in one place.
 */
export function serviceBackends(fn: StackFunction, backends: ServiceStandIns): ReadonlyMap<string, ServiceBackend> {
  const accessDenied = (type: string) => (res: ServerResponse, message: string) => jsonError(res, 400, type, message);
  return new Map<string, ServiceBackend>([
    [
      'dynamodb',
      {
        sdkId: 'DynamoDB',
        read: jsonProtocol(({ req, res, url, body }) =>
          backends.dynamodbChannel ? relay(req, res, url, body, backends.dynamodbChannel) : forward(req, res, backends.dynamodb, body),
        ),
        denied: accessDenied('com.amazon.coral.service#AccessDeniedException'),
      },
    ],
    [
      'secretsmanager',
      {
        sdkId: 'Secrets Manager',
        read: jsonProtocol(async ({ res, requests }) => {
          const arn = requests[0]!.resource;
          const value = backends.secrets.get(arn);
          if (value === undefined) return jsonError(res, 400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
          res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(JSON.stringify({ ARN: arn, Name: arn.split(':').pop(), SecretString: value, VersionId: 'local', VersionStages: ['AWSCURRENT'], CreatedDate: 0 }));
        }),
        denied: accessDenied('AccessDeniedException'),
      },
    ],
    [
      'sqs',
      {
        sdkId: 'SQS',
        read: jsonProtocol(async ({ req, res, body }, input) => {
          const sqs = backends.sqs;
          if (!sqs) return jsonError(res, 400, 'com.amazonaws.sqs#QueueDoesNotExist', 'The specified queue does not exist.', 'AWS.SimpleQueueService.NonExistentQueue;Sender');
          // The template's queue URL names the queue; the emulator knows it by its own URL.
          const localUrl = typeof input.QueueUrl === 'string' ? sqs.localUrl(input.QueueUrl) : undefined;
          return forward(req, res, sqs.endpoint, localUrl ? Buffer.from(JSON.stringify({ ...input, QueueUrl: localUrl })) : body);
        }),
        denied: (res, message) => jsonError(res, 403, 'com.amazon.coral.service#AccessDeniedException', message, 'AccessDenied;Sender'),
      },
    ],
    [
      's3',
      {
        sdkId: 'S3',
        read: (req, url, body) => s3Call(fn, backends, s3Operation(req.method ?? 'GET', url, body)),
        denied: (res, message) => s3Error(res, 403, 'AccessDenied', message),
        failure: (res, message) => s3Error(res, 500, 'InternalError', message),
      },
    ],
  ]);
}

/** A JSON-protocol service's call: the operation is the target's suffix, the input the body. */
function jsonProtocol(answer: (call: AllowedCall, input: Record<string, unknown>) => Promise<void>): ServiceBackend['read'] {
  return (req, _url, body) => {
    const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    return { command: String(req.headers['x-amz-target'] ?? '').split('.')[1], input, answer: (call) => answer(call, input) };
  };
}

/** An S3 REST call, served by the S3 stand-in, which asks the role whether a listing's prefix may be seen. */
function s3Call(fn: StackFunction, backends: ServiceStandIns, s3: S3Operation | undefined): ServiceCall {
  if (!s3) return { input: {}, answer: () => Promise.reject(new Error('no S3 operation to answer')) };
  const refusal = s3LimitRefusal(s3);
  return {
    command: s3.command,
    input: s3.input,
    ...(refusal ? { refusal: (res: ServerResponse) => s3Error(res, refusal.status, refusal.code, refusal.message) } : {}),
    ...(s3.command === 'DeleteObjects' ? { perKey: s3.input.Delete!.Objects.map((object) => object.Key) } : {}),
    answer: ({ req, res, url, body, refusedKeys }) => {
      const bucketArn = `arn:aws:s3:::${s3.input.Bucket}`;
      const mayList = async (prefix: string) =>
        (await evaluate(fn.role, overTls({ action: 's3:ListBucket', resource: bucketArn, context: { 's3:prefix': prefix } }), backends.resourcePolicy(bucketArn))).result === 'allowed';
      return backends.s3(req, res, url, s3, body, { mayList, refusedKeys });
    },
  };
}

/** In AWS every SDK call travels over TLS: the policies' `aws:SecureTransport` conditions see it so. */
export const overTls = (request: IamRequest): IamRequest => ({ ...request, context: { ...request.context, 'aws:SecureTransport': 'true' } });

export function jsonError(res: ServerResponse, status: number, type: string, message: string, queryError?: string): void {
  // SQS's JSON protocol also names the error as its query protocol did (`x-amzn-query-error`).
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': type, 'x-amzn-requestid': 'local', ...(queryError ? { 'x-amzn-query-error': queryError } : {}) });
  res.end(JSON.stringify({ __type: type, message, Message: message }));
}

/** An error in the AWS query protocol (SES, CloudFormation, SNS...). */
export function queryError(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': 'local' });
  res.end(`<ErrorResponse><Error><Type>Receiver</Type><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error><RequestId>local</RequestId></ErrorResponse>`);
}

/** Passes an allowed call on to the local service as it came. */
async function forward(req: IncomingMessage, res: ServerResponse, endpoint: string, body: Buffer): Promise<void> {
  const target = new URL(req.url ?? '/', endpoint);
  const upstream = request(target, { method: req.method, headers: { ...req.headers, host: target.host, 'content-length': body.length } });
  upstream.end(body);
  const [answer] = (await once(upstream, 'response')) as [IncomingMessage];
  res.writeHead(answer.statusCode ?? 500, answer.headers);
  // A caller that hangs up ends the relay too, rather than leaving it waiting on an answer nobody reads.
  await pipeline(answer, res).catch(() => undefined);
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
