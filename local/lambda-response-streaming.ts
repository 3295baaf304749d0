import type { Writable } from 'node:stream';

/** Eight NUL bytes end the JSON prelude of a streamed Lambda proxy response. */
export const preludeDelimiter = Buffer.alloc(8);

/**
 * What the Lambda Node.js runtime provides as the global `awslambda` for response streaming,
 * for the local runtime and the tests: `streamifyResponse` marks a handler that writes to a
 * response stream, and `HttpResponseStream.from` writes the HTTP metadata prelude (JSON, then
 * eight NUL bytes) that API Gateway reads before the body. In Lambda the real global is there.
 */
export function installLambdaResponseStreaming(): void {
  const scope = globalThis as { awslambda?: Record<string, unknown> };
  // The AWS SDK itself may have made an empty `awslambda` (for its invoke store): complete it.
  const runtime = (scope.awslambda ??= {});
  runtime.streamifyResponse ??= <T extends (...args: never[]) => unknown>(handler: T): T => handler;
  runtime.HttpResponseStream ??= {
    from(stream: Writable, metadata: object): Writable {
      stream.write(JSON.stringify(metadata));
      stream.write(preludeDelimiter);
      return stream;
    },
  };
}
