import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pipeline, Readable } from 'node:stream';
import { BlobsNotDeleted } from '../../lambdas/core/errors';
import type { BlobStore } from '../../lambdas/core/ports/blob-store';
import { newAwsId } from '../../lambdas/core/ids';

/** An S3 REST request as the SDK command it is, with the input IAM reads. */
export interface S3Operation {
  command:
    | 'GetObject'
    | 'HeadObject'
    | 'PutObject'
    | 'DeleteObject'
    | 'DeleteObjects'
    | 'ListObjectsV2'
    | 'CreateMultipartUpload'
    | 'UploadPart'
    | 'CompleteMultipartUpload'
    | 'AbortMultipartUpload';
  input: { Bucket: string; Key?: string; Prefix?: string; Delete?: { Objects: { Key: string }[]; Quiet: boolean } };
}

/** What the stand-in knows of the caller beyond the call's own authorization. */
export interface S3Caller {
  /** Whether the caller's role allows `s3:ListBucket` with this `s3:prefix`. */
  mayList(prefix: string): Promise<boolean>;
  /** The keys of a DeleteObjects its role may not delete: S3 judges each key and answers each refusal in the result. */
  refusedKeys?: ReadonlySet<string>;
}

/** Maps a path-style S3 REST request onto its command, or undefined when it is none the stand-in serves. */
export function s3Operation(method: string, url: URL, body: Buffer = Buffer.alloc(0)): S3Operation | undefined {
  const [, bucket = '', ...rest] = url.pathname.split('/');
  const key = decodeURIComponent(rest.join('/'));
  const q = url.searchParams;
  const on = (command: S3Operation['command']): S3Operation => ({ command, input: { Bucket: bucket, Key: key } });
  if (!bucket) return undefined;
  if (!key) {
    if (method === 'POST' && q.has('delete')) return { command: 'DeleteObjects', input: { Bucket: bucket, Delete: deleteRequest(body) } };
    if (method !== 'GET' || q.get('list-type') !== '2') return undefined;
    return { command: 'ListObjectsV2', input: { Bucket: bucket, ...(q.get('prefix') ? { Prefix: q.get('prefix')! } : {}) } };
  }
  if (method === 'POST' && q.has('uploads')) return on('CreateMultipartUpload');
  if (method === 'PUT' && q.has('uploadId')) return on('UploadPart');
  if (method === 'POST' && q.has('uploadId')) return on('CompleteMultipartUpload');
  if (method === 'DELETE' && q.has('uploadId')) return on('AbortMultipartUpload');
  if ([...q.keys()].some((name) => name !== 'x-id')) return undefined;
  const plain = { GET: 'GetObject', HEAD: 'HeadObject', PUT: 'PutObject', DELETE: 'DeleteObject' } as const;
  return method in plain ? on(plain[method as keyof typeof plain]) : undefined;
}

export const xmlEscape = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
const xmlEntities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const xmlUnescape = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) =>
    name.startsWith('#x') || name.startsWith('#X')
      ? String.fromCodePoint(parseInt(name.slice(2), 16))
      : name.startsWith('#')
        ? String.fromCodePoint(Number(name.slice(1)))
        : (xmlEntities[name] ?? entity),
  );

/** The keys and mode of a DeleteObjects body (`<Delete><Object><Key>…</Key></Object>…<Quiet>true</Quiet></Delete>`). */
function deleteRequest(body: Buffer): { Objects: { Key: string }[]; Quiet: boolean } {
  const xml = body.toString('utf8');
  const Objects = [...xml.matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map((match) => ({ Key: xmlUnescape(match[1] ?? '') }));
  return { Objects, Quiet: /<Quiet>\s*true\s*<\/Quiet>/i.test(xml) };
}

/** S3's most keys in one page of a listing. */
const listPageKeys = 1000;

export function s3Error(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': 'local' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message><RequestId>local</RequestId><HostId>local</HostId></Error>`);
}

/** Decodes an `aws-chunked` body (the SDK's streaming upload with trailing checksums). */
function decodeAwsChunked(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1').split(';')[0] ?? '', 16);
    if (!size) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/**
 * S3 over the project's blob directory (`DATA_DIR/blobs`), for the few operations the functions
 * use: objects, their batch delete, their listing (in pages of 1,000 keys) and multipart uploads. The operator CLI sees what the functions
 * wrote, as with `npm start`.
 */
export function s3StandIn(bucket: string, blobs: BlobStore, blobRoot: string) {
  const uploads = new Map<string, { key: string; parts: Map<number, Buffer>; contentType?: string }>();
  return async function serve(req: IncomingMessage, res: ServerResponse, url: URL, operation: S3Operation, raw: Buffer, caller: S3Caller): Promise<void> {
    if (operation.input.Bucket !== bucket) return s3Error(res, 404, 'NoSuchBucket', 'The specified bucket does not exist');
    const chunked = String(req.headers['content-encoding'] ?? '').includes('aws-chunked') || String(req.headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-');
    const body = chunked ? decodeAwsChunked(raw) : raw;
    const contentType = req.headers['content-type'];
    switch (operation.command) {
      case 'PutObject': {
        await blobs.put(operation.input.Key!, body, contentType ? { contentType } : {});
        res.writeHead(200, { etag: '"local"' });
        return void res.end();
      }
      case 'GetObject':
      case 'HeadObject': {
        const read = await blobs.get(operation.input.Key!, { ifNoneMatch: req.headers['if-none-match'] });
        if (!read) {
          // As S3 does: a missing key is told apart from a forbidden one only to a caller that may list it.
          const listable = await caller.mayList(operation.input.Key!);
          if (operation.command === 'HeadObject') return void (res.writeHead(listable ? 404 : 403), res.end());
          return listable ? s3Error(res, 404, 'NoSuchKey', 'The specified key does not exist.') : s3Error(res, 403, 'AccessDenied', 'Access Denied');
        }
        if (read.notModified) return void (res.writeHead(304, { etag: read.etag }), res.end());
        res.writeHead(200, {
          etag: read.etag,
          'content-length': read.size,
          ...(read.contentType ? { 'content-type': read.contentType } : {}),
        });
        if (operation.command === 'HeadObject') {
          read.body.destroy();
          return void res.end();
        }
        // As S3 ends a read its client dropped (a bounded read stops early): the file is closed
        // with the connection, never left open until garbage collection.
        pipeline(read.body, res, () => undefined);
        return;
      }
      case 'DeleteObject':
        await blobs.delete(operation.input.Key!);
        res.writeHead(204);
        return void res.end();
      case 'DeleteObjects': {
        const { Objects, Quiet } = operation.input.Delete!;
        const keys = Objects.map((object) => object.Key);
        const refused = keys.filter((key) => caller.refusedKeys?.has(key));
        const allowed = keys.filter((key) => !caller.refusedKeys?.has(key));
        let failed = new Map<string, string>();
        await blobs.deleteMany(allowed).catch((error: unknown) => {
          if (!(error instanceof BlobsNotDeleted)) throw error;
          failed = new Map(error.failures.map((failure) => [failure.key, failure.reason]));
        });
        const errors = [...refused.map((key) => [key, 'AccessDenied', 'Access Denied']), ...[...failed].map(([key]) => [key, 'InternalError', 'We encountered an internal error. Please try again.'])];
        const deleted = Quiet ? [] : allowed.filter((key) => !failed.has(key));
        res.writeHead(200, { 'content-type': 'application/xml' });
        return void res.end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult>${deleted.map((key) => `<Deleted><Key>${xmlEscape(key)}</Key></Deleted>`).join('')}${errors
            .map(([key, code, message]) => `<Error><Key>${xmlEscape(key!)}</Key><Code>${code}</Code><Message>${message}</Message></Error>`)
            .join('')}</DeleteResult>`,
        );
      }
      case 'ListObjectsV2': {
        const prefix = url.searchParams.get('prefix') ?? '';
        // A page ends at the most keys asked for (1,000 at most); the next goes on after its last key, as S3's token does.
        const maxKeys = Math.min(Number(url.searchParams.get('max-keys') ?? listPageKeys), listPageKeys);
        const startAfter = url.searchParams.get('continuation-token') ?? url.searchParams.get('start-after') ?? undefined;
        const contents: string[] = [];
        let last: string | undefined;
        let truncated = false;
        for await (const { key, written } of blobs.list(prefix, startAfter ? { startAfter } : {})) {
          if (contents.length === maxKeys) {
            truncated = true;
            break;
          }
          const size = (await stat(join(blobRoot, `${key}~blob`)).catch(() => undefined))?.size ?? 0;
          contents.push(`<Contents><Key>${xmlEscape(key)}</Key><LastModified>${written.toISOString()}</LastModified><Size>${size}</Size></Contents>`);
          last = key;
        }
        const next = truncated && last ? `<NextContinuationToken>${xmlEscape(last)}</NextContinuationToken>` : '';
        res.writeHead(200, { 'content-type': 'application/xml' });
        return void res.end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult><Name>${bucket}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${contents.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${next}${contents.join('')}</ListBucketResult>`,
        );
      }
      case 'CreateMultipartUpload': {
        const uploadId = newAwsId();
        uploads.set(uploadId, { key: operation.input.Key!, parts: new Map(), ...(contentType ? { contentType } : {}) });
        res.writeHead(200, { 'content-type': 'application/xml' });
        return void res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${xmlEscape(operation.input.Key!)}</Key><UploadId>${uploadId}</UploadId></InitiateMultipartUploadResult>`);
      }
      case 'UploadPart': {
        const upload = uploads.get(url.searchParams.get('uploadId') ?? '');
        if (!upload) return s3Error(res, 404, 'NoSuchUpload', 'The specified upload does not exist.');
        const number = Number(url.searchParams.get('partNumber'));
        upload.parts.set(number, body);
        res.writeHead(200, { etag: `"part-${number}"` });
        return void res.end();
      }
      case 'CompleteMultipartUpload': {
        const uploadId = url.searchParams.get('uploadId') ?? '';
        const upload = uploads.get(uploadId);
        if (!upload) return s3Error(res, 404, 'NoSuchUpload', 'The specified upload does not exist.');
        uploads.delete(uploadId);
        const ordered = [...upload.parts.entries()].sort(([a], [b]) => a - b).map(([, part]) => part);
        await blobs.put(upload.key, Readable.from(ordered), upload.contentType ? { contentType: upload.contentType } : {});
        res.writeHead(200, { 'content-type': 'application/xml' });
        return void res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<CompleteMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${xmlEscape(upload.key)}</Key><ETag>"local"</ETag></CompleteMultipartUploadResult>`);
      }
      case 'AbortMultipartUpload':
        uploads.delete(url.searchParams.get('uploadId') ?? '');
        res.writeHead(204);
        return void res.end();
    }
  };
}
