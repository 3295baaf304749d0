import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { startApiGateway, type RunningApiGateway, type StreamingFunction } from '../../../local/api-gateway';
import { routeTableApi } from '../../../local/route-table-api';
import { preludeDelimiter } from '../../../local/lambda-response-streaming';

const allow = async (): Promise<APIGatewayAuthorizerResult> => ({
  principalId: 'acc_x',
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }] },
  context: { decision: 'allow' },
});

async function gatewayWith(fn: StreamingFunction): Promise<RunningApiGateway> {
  return startApiGateway({
    host: '127.0.0.1',
    port: 0,
    api: routeTableApi(allow, new Map([['getMessageSource', { mode: 'streamed', fn }]])),
  });
}

const path = '/v1/messages/msg_AAAAAAAAAAAAAAAAAAAAAA/source';

describe('the local gateway relaying a streamed function, as API Gateway does', () => {
  it('answers with the prelude status and headers, then the body as it comes', async () => {
    const chunks = [Buffer.from('first '), Buffer.alloc(256 * 1024, 'x'), Buffer.from(' last')];
    const gateway = await gatewayWith(async (_event, stream: Writable) => {
      const length = String(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
      const headers = { 'Content-Type': 'message/rfc822', 'Content-Length': length, ETag: '"abc"' };
      stream.write(JSON.stringify({ statusCode: 200, headers }));
      stream.write(preludeDelimiter);
      await pipeline(Readable.from(chunks), stream);
    });
    try {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('message/rfc822');
      expect(response.headers.get('etag')).toBe('"abc"');
      expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.concat(chunks));
    } finally {
      await gateway.close();
    }
  });

  it('answers 500 in the error shape when the function fails before its prelude', async () => {
    const gateway = await gatewayWith(async () => {
      throw new Error('boom');
    });
    try {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status).toBe(500);
      // A gateway-made error, as in AWS: the request id in the body, no X-Request-Id header.
      expect(response.headers.get('x-request-id')).toBeNull();
      expect((await response.json()) as unknown).toEqual({
        error: { code: 'internal_error', message: expect.any(String), request_id: `req_${response.headers.get('x-amzn-requestid')}` },
      });
    } finally {
      await gateway.close();
    }
  });

  it('answers 500 when the function ends without a prelude', async () => {
    const gateway = await gatewayWith(async (_event, stream) => {
      stream.end('no prelude here');
    });
    try {
      expect((await fetch(`${gateway.url}${path}`)).status).toBe(500);
    } finally {
      await gateway.close();
    }
  });
});
