import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../lambdas/core/logger';
import type { CallEvaluator, Decision } from './evaluator';
import { s3Error, s3Operation } from './s3-stand-in';
import { localAccount, localRegion, type StackFunction } from './template';

/** One AWS call as the endpoints saw it, after evaluation. */
export interface EvaluatedCall {
  function: string;
  service: string;
  action: string;
  resource: string;
  decision: Decision;
}

export interface AwsBackends {
  /** dynalite's endpoint. */
  dynamodb: string;
  s3: (req: IncomingMessage, res: ServerResponse, url: URL, operation: NonNullable<ReturnType<typeof s3Operation>>, body: Buffer) => Promise<void>;
  secrets: ReadonlyMap<string, string>;
}

export interface FunctionEndpoint {
  url: string;
  close(): Promise<void>;
}

type Call = { service: string; checks: { action: string; resource: string }[] } | { service: string; unmappable: string };

const tableArn = (name: string) => `arn:aws:dynamodb:${localRegion}:${localAccount}:table/${name}`;

/** DynamoDB's JSON request, as the actions and resources IAM evaluates it on. */
function dynamoDbCall(target: string, body: Record<string, unknown>): Call {
  const operation = target.split('.')[1] ?? '';
  const service = 'dynamodb';
  const single = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan', 'DescribeTable', 'DescribeTimeToLive'];
  if (single.includes(operation) && typeof body.TableName === 'string') {
    const resource = tableArn(body.TableName) + (typeof body.IndexName === 'string' ? `/index/${body.IndexName}` : '');
    return { service, checks: [{ action: `dynamodb:${operation}`, resource }] };
  }
  if ((operation === 'BatchGetItem' || operation === 'BatchWriteItem') && body.RequestItems) {
    return { service, checks: Object.keys(body.RequestItems).map((table) => ({ action: `dynamodb:${operation}`, resource: tableArn(table) })) };
  }
  if ((operation === 'TransactWriteItems' || operation === 'TransactGetItems') && Array.isArray(body.TransactItems)) {
    const actions: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem', Get: 'GetItem' };
    const checks: { action: string; resource: string }[] = [];
    for (const item of body.TransactItems as Record<string, { TableName?: string }>[]) {
      const [kind, detail] = Object.entries(item)[0] ?? [];
      if (!kind || !actions[kind] || typeof detail?.TableName !== 'string') return { service, unmappable: `${operation} item ${kind}` };
      checks.push({ action: `dynamodb:${actions[kind]}`, resource: tableArn(detail.TableName) });
    }
    return { service, checks };
  }
  return { service, unmappable: `dynamodb operation ${operation || '(none)'}` };
}

/** The signing service of a SigV4 request: which AWS service the SDK meant to call. */
function signedService(req: IncomingMessage): string | undefined {
  return /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1];
}

function jsonError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': type, 'x-amzn-requestid': 'local' });
  res.end(JSON.stringify({ __type: type, message, Message: message }));
}

/**
 * The AWS endpoints one function's SDK calls reach (`AWS_ENDPOINT_URL_*` in its environment): a
 * port of its own, so every call is known to come from that function. Each call is mapped onto
 * the IAM actions and resources AWS evaluates, evaluated against the function's role, logged,
 * and either answered as AWS answers a denied call or passed on to the local service.
 */
export async function startFunctionEndpoint(
  fn: StackFunction,
  evaluator: CallEvaluator,
  backends: AwsBackends,
  record: (call: EvaluatedCall) => void,
  logger: Logger,
): Promise<FunctionEndpoint> {
  const principal = `arn:aws:sts::${localAccount}:assumed-role/${fn.roleArn.split('/').pop()}/${fn.name}`;
  const server: Server = createServer((req, res) => {
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
    const target = String(req.headers['x-amz-target'] ?? '');
    let call: Call;
    let s3: ReturnType<typeof s3Operation>;
    if (service === 'dynamodb') call = dynamoDbCall(target, JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>);
    else if (service === 's3') {
      s3 = s3Operation(req.method ?? 'GET', url);
      call = s3 ? { service, checks: [{ action: s3.action, resource: s3.resource }] } : { service, unmappable: `s3 ${req.method} ${url.search}` };
    } else if (service === 'secretsmanager' && target === 'secretsmanager.GetSecretValue') {
      const secretId = String((JSON.parse(body.toString('utf8') || '{}') as { SecretId?: string }).SecretId);
      call = { service, checks: [{ action: 'secretsmanager:GetSecretValue', resource: secretId }] };
    } else call = { service, unmappable: `${service} ${target || req.method}` };

    if ('unmappable' in call) {
      record({ function: fn.name, service, action: call.unmappable, resource: '', decision: 'unmappable' });
      logger.error('aws call not evaluated: unmappable', { function: fn.name, call: call.unmappable });
      return jsonError(res, 500, 'InternalFailure', `the local stack cannot evaluate ${call.unmappable}`);
    }
    for (const check of call.checks) {
      const decision = await evaluator.evaluate(fn, check.action, check.resource, {
        'aws:PrincipalArn': fn.roleArn,
        'aws:RequestedRegion': localRegion,
      });
      record({ function: fn.name, service, ...check, decision });
      if (decision === 'allowed') continue;
      const message =
        decision === 'denied'
          ? `User: ${principal} is not authorized to perform: ${check.action} on resource: ${check.resource} because no identity-based policy allows the ${check.action} action`
          : `the IAM evaluator cannot map ${check.action} on ${check.resource}`;
      logger.error(decision === 'denied' ? 'aws call denied' : 'aws call not evaluated: unmappable', {
        function: fn.name,
        action: check.action,
        resource: check.resource,
      });
      if (decision === 'unmappable') return jsonError(res, 500, 'InternalFailure', message);
      if (service === 's3') return s3Error(res, 403, 'AccessDenied', message);
      return jsonError(res, 400, service === 'dynamodb' ? 'com.amazon.coral.service#AccessDeniedException' : 'AccessDeniedException', message);
    }
    if (service === 'dynamodb') return forward(req, res, backends.dynamodb, body);
    if (service === 's3') return backends.s3(req, res, url, s3!, body);
    const arn = call.checks[0].resource;
    const value = backends.secrets.get(arn);
    if (value === undefined) return jsonError(res, 400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify({ ARN: arn, Name: arn.split(':').pop(), SecretString: value, VersionId: 'local', VersionStages: ['AWSCURRENT'], CreatedDate: 0 }));
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
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
