import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';

/**
 * The bodies a buffered Lambda proxy integration passes: the request's, read whole up to the
 * gateway's limit, and the function's result, written back; binary media types decide which
 * travel base64-encoded, as API Gateway decides.
 */

/** Whether a media type is one of the API's binary media types (the all-types pattern covers a request that names none). */
export function isBinaryMediaType(binaryMediaTypes: readonly string[], mediaType: string | undefined): boolean {
  const type = mediaType?.split(';')[0]!.trim().toLowerCase() ?? '';
  return binaryMediaTypes.some((declared) => {
    const pattern = declared.replace(/~1/g, '/').toLowerCase();
    if (pattern === '*/*') return true;
    return pattern.endsWith('/*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type;
  });
}

/** The request's body, or `too-large` as soon as it passes `limit` (the rest is drained unread). */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      return 'too-large';
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Writes a buffered function's proxy result as the response; a base64 body is decoded when `decodeBinary`. */
export function writeResult(res: ServerResponse, result: APIGatewayProxyResult, decodeBinary: boolean): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) res.setHeader(name, values.map(String));
  res.statusCode = result.statusCode;
  res.end(result.isBase64Encoded && decodeBinary ? Buffer.from(result.body, 'base64') : result.body);
}
