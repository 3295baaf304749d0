import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the bundled functions (the alias in
 * `lib/bundle-settings.ts`): every AWS SDK client's default credential chain becomes the
 * environment alone. The Lambda runtime always hands a function its role's credentials in
 * `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, and `start:stack` does the
 * same, so the rest of the chain (SSO, STS web identity, profiles, container and instance
 * metadata) is never reached there; bundling it costs every function its nested SSO/STS clients
 * at each cold start. `npm start` runs unbundled and keeps the SDK's own chain.
 */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
