import type { IdentityVerifier } from '../core/ports/identity-verifier';
import type { BlobStore } from '../core/ports/blob-store';
import type { FunctionAccess } from '../function-access';
import { touchesBlobs, verifiesIdentity, type FunctionDeclaration, type FunctionTrigger } from '../function-manifest';
import { lambdaBlobStore } from './lambda-blob-store';
import { lambdaIdentityVerifier } from './lambda-identity-verifier';
import { lambdaServices } from './lambda-services';
import type { ApiServices } from './services';

/** What a function's access adds to the API's services: the blob store where it has blob access. */
export type AccessServices<A extends FunctionAccess> = ApiServices & (A extends { readonly blobs: object } ? { blobs: BlobStore } : unknown);

/** What a console route's trigger adds: the verifier of identity tokens. */
export type TriggerServices<T extends FunctionTrigger> = T extends { readonly route: { readonly auth: 'identity' } } ? { identityVerifier: IdentityVerifier } : unknown;

/**
 * The services of a declared function, read off its manifest row at compile time: a handler
 * written against more than its row grants does not compile. The cursor secret is not here: it
 * is read per request, and only lambda-route.ts hands it to a route (its type says so).
 */
export type FunctionServices<D extends Pick<FunctionDeclaration, 'access' | 'trigger'>> = AccessServices<D['access']> & TriggerServices<D['trigger']>;

/**
 * The Lambda composition of one function: the services its manifest row names, built at its first
 * request (never at import) and kept for the life of the instance. Each optional part is guarded
 * first by a constant the bundler writes from the same row (bundle-defines.ts), so that esbuild
 * leaves the S3 client and the token verifier out of the bundles that never build them; unbundled,
 * the constants are unset and the row alone decides.
 */
export function lambdaFunctionServices<D extends FunctionDeclaration>(declaration: D): () => FunctionServices<D> {
  let services: FunctionServices<D> | undefined;
  return () => {
    if (services) return services;
    const api = lambdaServices();
    services = {
      ...api,
      ...(process.env.TEMPMAIL_BUNDLE_BLOBS !== 'false' && touchesBlobs(declaration) ? { blobs: lambdaBlobStore() } : {}),
      ...(process.env.TEMPMAIL_BUNDLE_IDENTITY !== 'false' && verifiesIdentity(declaration) ? { identityVerifier: lambdaIdentityVerifier(api) } : {}),
    } as FunctionServices<D>;
    return services;
  };
}
