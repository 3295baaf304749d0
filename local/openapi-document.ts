import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';

/** Where the local service publishes its OpenAPI document: beside the API, not under `/v1`. */
export const openApiDocumentPath = '/openapi.yaml';

/** The document is public and changes only with a new version of the service. */
const cacheControl = 'public, max-age=300';

let document: { body: Buffer; etag: string } | undefined;

function load(): { body: Buffer; etag: string } {
  if (!document) {
    const body = readFileSync(join(__dirname, '..', 'openapi', 'openapi.yaml'));
    document = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
  }
  return document;
}

/**
 * `GET /openapi.yaml`: the contract as OpenAPI, for anyone (no key, never charged, no account
 * touched). It carries `X-Request-Id` like every answer, a strong `ETag` and a public
 * `Cache-Control`; `If-None-Match` is answered with 304. Other methods fall through to the
 * gateway's unknown-route answer (returns false).
 */
export function serveOpenApiDocument(req: IncomingMessage, res: ServerResponse, requestId: string): boolean {
  if (req.method !== 'GET') return false;
  req.resume();
  const { body, etag } = load();
  const headers = {
    'Cache-Control': cacheControl,
    ETag: etag,
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': requestId,
  };
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => [etag, `W/${etag}`, '*'].includes(tag.trim()))) {
    res.writeHead(304, headers).end();
    return true;
  }
  res.writeHead(200, { ...headers, 'Content-Type': 'application/yaml', 'Content-Length': String(body.length) }).end(body);
  return true;
}
