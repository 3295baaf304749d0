import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { renderApiReference, type OpenApiDocument } from './render-reference';

/** Where the reference is published, on `npm start` and behind the console's CloudFront distribution alike. */
export const apiReferencePath = '/docs';
/** Its stylesheet: the page's one other file, on the same origin. */
export const apiReferenceStylesheetPath = '/docs/reference.css';

/** The document and its reference are public and change only with a new version of the service. */
export const publishedDocumentCacheControl = 'public, max-age=300';

/** The OpenAPI document the reference is built from. */
export const openApiDocumentFile = join(__dirname, '..', 'openapi.yaml');

/**
 * The page's policy: nothing but its own stylesheet, no script at all, never framed, no form,
 * no base. The same in both runtimes (the front's headers locally, a CloudFront response headers
 * policy in AWS).
 */
export const apiReferenceContentSecurityPolicy = "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The reference's two files, built from the document on disk. `documentHref`: where the document
 * is published beside the page (`npm start` serves it at `/openapi.yaml`; the AWS stack does not).
 */
export function apiReferenceFiles(options: { documentHref?: string } = {}): { html: string; css: string } {
  const document = parse(readFileSync(openApiDocumentFile, 'utf8')) as OpenApiDocument;
  return {
    html: renderApiReference(document, { stylesheetHref: apiReferenceStylesheetPath, ...options }),
    css: readFileSync(join(__dirname, 'reference.css'), 'utf8'),
  };
}
