import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  apiReferenceContentSecurityPolicy,
  apiReferenceFiles,
  apiReferencePath,
  apiReferenceStylesheetPath,
  openApiDocumentFile,
  publishedDocumentCacheControl,
} from '../openapi/reference/api-reference';

/** Where the local service publishes its OpenAPI document: beside the API, not under `/v1`. */
export const openApiDocumentPath = '/openapi.yaml';

/** The reference's pages carry the headers CloudFront gives them in AWS (HSTS aside: this is HTTP). */
const pageHeaders = {
  'Content-Security-Policy': apiReferenceContentSecurityPolicy,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

interface PublishedDocument {
  type: string;
  headers: Record<string, string>;
  read(): Buffer;
}

const documents = new Map<string, PublishedDocument>([
  [openApiDocumentPath, { type: 'application/yaml', headers: {}, read: () => readFileSync(openApiDocumentFile) }],
  [apiReferencePath, { type: 'text/html; charset=utf-8', headers: pageHeaders, read: () => Buffer.from(reference().html) }],
  [apiReferenceStylesheetPath, { type: 'text/css; charset=utf-8', headers: pageHeaders, read: () => Buffer.from(reference().css) }],
]);

let built: ReturnType<typeof apiReferenceFiles> | undefined;
const reference = () => (built ??= apiReferenceFiles({ documentHref: openApiDocumentPath }));

const loaded = new Map<string, { body: Buffer; etag: string }>();

function load(path: string, document: PublishedDocument): { body: Buffer; etag: string } {
  let file = loaded.get(path);
  if (!file) {
    const body = document.read();
    loaded.set(path, (file = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` }));
  }
  return file;
}

/**
 * `GET /openapi.yaml`, and the API reference built from it (`GET /docs` and its stylesheet), for
 * anyone: no key, never charged, no account touched. Each carries `X-Request-Id` like every
 * answer, a strong `ETag` and a public `Cache-Control`; `If-None-Match` is answered with 304. The
 * reference's files carry their page's CSP. Another path or method falls through to the gateway's
 * unknown-route answer (returns false).
 */
export function servePublishedDocument(req: IncomingMessage, res: ServerResponse, path: string, requestId: string): boolean {
  const document = documents.get(path);
  if (!document || req.method !== 'GET') return false;
  req.resume();
  const { body, etag } = load(path, document);
  const headers = {
    ...document.headers,
    'Cache-Control': publishedDocumentCacheControl,
    ETag: etag,
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': requestId,
  };
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => [etag, `W/${etag}`, '*'].includes(tag.trim()))) {
    res.writeHead(304, headers).end();
    return true;
  }
  res.writeHead(200, { ...headers, 'Content-Type': document.type, 'Content-Length': String(body.length) }).end(body);
  return true;
}
