import { Readable } from 'node:stream';
import type { MessagePort } from 'node:worker_threads';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

/**
 * The DynamoDB API between the service and the storage thread without TCP or HTTP: the SDK
 * signs and serializes each request exactly as it does for AWS, a request handler posts it to
 * the thread over a MessagePort, and the thread hands it to dynalite's own request listener.
 * A loopback HTTP round trip cost more than dynalite's work for most calls (socket writes,
 * HTTP parsing on both sides); the port beside it still serves other processes.
 */
export interface ChannelRequest {
  id: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface ChannelReply {
  id: number;
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

type RequestHandler = NonNullable<DynamoDBClientConfig['requestHandler']>;

/** One signed request as the SDK hands it over, and the thread's answer: the channel as a caller other than the SDK uses it. */
export interface StorageChannel {
  handle(
    request: { method: string; path: string; query?: Record<string, string>; headers: Record<string, string>; body?: unknown },
    options?: { abortSignal?: AbortSignal },
  ): Promise<{ response: { statusCode: number; headers: Record<string, string>; body: Uint8Array } }>;
}

/** The SDK request handler of the service's side: one request in flight per id, answered by the thread. */
export function channelRequestHandler(port: MessagePort): RequestHandler & StorageChannel {
  let nextId = 0;
  const pending = new Map<number, (reply: ChannelReply) => void>();
  port.on('message', (reply: ChannelReply) => {
    const settle = pending.get(reply.id);
    pending.delete(reply.id);
    // The port keeps the process alive only while a request waits for its answer.
    if (pending.size === 0) port.unref();
    settle?.(reply);
  });
  port.unref();
  const handler = {
    metadata: { handlerProtocol: 'http/1.1' },
    handle(request: { method: string; path: string; query?: Record<string, unknown>; headers: Record<string, string>; body?: unknown }, options: { abortSignal?: AbortSignal } = {}) {
      const { abortSignal } = options;
      return new Promise<{ response: { statusCode: number; headers: Record<string, string>; body: Uint8Array } }>((resolve, reject) => {
        if (abortSignal?.aborted) return reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
        const id = nextId++;
        const onAbort = () => {
          pending.delete(id);
          reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
        };
        abortSignal?.addEventListener('abort', onAbort, { once: true });
        pending.set(id, (reply) => {
          abortSignal?.removeEventListener('abort', onAbort);
          resolve({ response: { statusCode: reply.statusCode, headers: reply.headers, body: Buffer.from(reply.body, 'utf8') } });
        });
        port.ref();
        const query = new URLSearchParams(request.query as Record<string, string> | undefined).toString();
        port.postMessage({
          id,
          method: request.method,
          path: query ? `${request.path}?${query}` : request.path,
          headers: request.headers,
          body: bodyText(request.body),
        } satisfies ChannelRequest);
      });
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
    destroy: () => undefined,
  };
  return handler as unknown as RequestHandler & StorageChannel;
}

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  throw new TypeError('the storage channel carries string or byte bodies only');
}

/** The thread's side: answers each request posted on `port` with dynalite's own request listener. */
export function serveChannel(port: MessagePort, server: Server): void {
  const listener = server.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void;
  port.on('message', (request: ChannelRequest) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
    const req = Object.assign(Readable.from(request.body ? [Buffer.from(request.body, 'utf8')] : []), {
      method: request.method,
      url: request.path,
      headers,
    });
    const replyHeaders: Record<string, string> = {};
    const res = {
      statusCode: 200,
      setHeader(name: string, value: unknown) {
        replyHeaders[name.toLowerCase()] = String(value);
      },
      end(body?: string | Buffer) {
        port.postMessage({ id: request.id, statusCode: res.statusCode, headers: replyHeaders, body: body === undefined ? '' : String(body) } satisfies ChannelReply);
      },
    };
    listener(req as unknown as IncomingMessage, res as unknown as ServerResponse);
  });
}
