import type { FileBody } from './api-types';

/** Longest ASCII fallback name offered in `filename=`. */
const asciiNameMax = 100;

/**
 * The headers of every file body (contract: downloads are always forced as attachments): a
 * `Content-Disposition` whose names cannot carry CR, LF, quotes or paths, `nosniff`, and a CSP
 * that lets nothing run should a browser render it anyway.
 */
export function fileHeaders(file: FileBody): Record<string, string> {
  return {
    'Content-Type': file.contentType,
    'Content-Length': String(file.size),
    ETag: file.etag,
    'Content-Disposition': contentDisposition(file.filename),
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
  };
}

/** `attachment; filename="<safe ASCII>"; filename*=UTF-8''<percent-encoded>` (RFC 6266, RFC 5987). */
export function contentDisposition(filename: string): string {
  const base = baseName(filename);
  const ascii = asciiFallback(base);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${rfc5987(base || ascii)}`;
}

/** The last path segment, without control characters: a name, never a path. */
function baseName(filename: string): string {
  const clean = filename.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
  const last = clean.split(/[\\/]/).pop() ?? '';
  return last.replace(/^\.+/, '').slice(0, 255);
}

/** Letters, digits, dot, dash, underscore; everything else `_`; never empty, never hidden. */
function asciiFallback(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[._]+/, '')
    .slice(-asciiNameMax);
  return ascii === '' || /^_*$/.test(ascii) ? 'attachment' : ascii;
}

/** RFC 5987 `value-chars`: attr-char kept, every other UTF-8 byte percent-encoded. */
function rfc5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
