import type { ServerResponse } from 'node:http';
import { PassThrough, type Writable } from 'node:stream';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { preludeDelimiter } from '../lambda-response-streaming';

/**
 * Relays a streamed Lambda response as API Gateway does: reads the JSON prelude up to its eight
 * NUL bytes, answers with its status and headers, then passes the body on as it comes.
 */
export async function relayStream(res: ServerResponse, invoke: (stream: Writable) => Promise<void>, failed: (error: unknown) => void) {
  const stream = new PassThrough();
  // A client that leaves mid-body ends the function's stream at once, and with it the file it reads.
  const abandoned = () => {
    if (!res.writableFinished) stream.destroy(new Error('The client closed the connection.'));
  };
  res.once('close', abandoned);
  const invocation = invoke(stream).catch((error: Error) => stream.destroy(error));
  let prelude: Buffer | undefined = Buffer.alloc(0);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (prelude === undefined) {
        if (!res.write(chunk)) await drained(res);
        continue;
      }
      prelude = Buffer.concat([prelude, chunk]);
      const end = prelude.indexOf(preludeDelimiter);
      if (end < 0) continue;
      const metadata = JSON.parse(prelude.subarray(0, end).toString('utf8')) as APIGatewayProxyResult;
      for (const [name, value] of Object.entries(metadata.headers ?? {})) res.setHeader(name, String(value));
      res.statusCode = metadata.statusCode;
      const rest = prelude.subarray(end + preludeDelimiter.length);
      prelude = undefined;
      if (rest.length > 0 && !res.write(rest)) await drained(res);
    }
    await invocation;
  } catch (error) {
    if (!res.headersSent) return failed(error);
    res.destroy();
    return;
  }
  // A stream that ends without its prelude is not a proxy response: the function's failure.
  if (prelude !== undefined) return failed(new Error('no prelude'));
  res.end();
}

/** Resolves when the response can take more, or when it has closed (a closed response never drains). */
function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
