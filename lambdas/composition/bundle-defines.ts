import { readsCursorSecret, touchesBlobs, verifiesIdentity, type FunctionDeclaration } from '../function-manifest';

/**
 * The constants a function's bundle is built with (esbuild's `define`), written from its manifest
 * row: whether it may build the blob store, read the cursor secret, verify identity tokens. The
 * Lambda composition (lambda-function-services.ts, lambda-route.ts) tests each one before the row,
 * so esbuild drops the S3 client, the Secrets Manager client and the token verifier from every
 * bundle whose row never builds them. They are no variables of the function's environment:
 * unbundled they are unset, and the row alone decides.
 */
export function bundleDefines(declaration: FunctionDeclaration): Record<string, string> {
  const holds = {
    TEMPMAIL_BUNDLE_BLOBS: touchesBlobs(declaration),
    TEMPMAIL_BUNDLE_CURSOR_SECRET: readsCursorSecret(declaration),
    TEMPMAIL_BUNDLE_IDENTITY: verifiesIdentity(declaration),
  };
  return Object.fromEntries(Object.entries(holds).map(([name, held]) => [`process.env.${name}`, JSON.stringify(String(held))]));
}
