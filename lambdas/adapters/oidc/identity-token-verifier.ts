import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../../core/ports/clock';
import { InvalidIdentityToken, Unavailable } from '../../core/errors';
import type { IdentityVerifier } from '../../core/ports/identity-verifier';

/** Which OpenID Connect issuer the console trusts, and the console's client id there. */
export interface OidcConfig {
  /** The issuer identifier, exactly as its tokens carry it in `iss`. */
  issuer: string;
  /** The console's client id: the audience of the ID tokens it accepts. */
  clientId: string;
}

/** Signature algorithms accepted: asymmetric only, never `none` or a shared secret. */
const algorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];

/**
 * Verifies OpenID Connect ID tokens against the configured issuer's published keys (its
 * discovery document's `jwks_uri`), in plain OIDC: the same code for Amazon Cognito, the local
 * issuer of `npm start`, or any issuer a self-hoster configures. Checks the signature, `iss`,
 * `aud` (the console's client id), `exp`, and, where the issuer marks token kinds (Cognito's
 * `token_use`), that it is an ID token. An unreachable issuer is 503, not 401. `deps.issuerKeys`
 * gives the issuer's keys where they are at hand (the local gateway's stand-in for a user pool
 * holds them as API Gateway holds Cognito's); otherwise they are discovered over HTTP.
 */
export function oidcIdentityVerifier(config: OidcConfig, deps: { clock: Clock; issuerKeys?: () => Promise<JWTVerifyGetKey> }): IdentityVerifier {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const keySet = () => {
    keys ??= (deps.issuerKeys ?? (() => discoverKeys(config.issuer)))().catch((error: unknown) => {
      keys = undefined;
      throw new Unavailable(5, { cause: error });
    });
    return keys;
  };
  return {
    async verify(token) {
      if (!token || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) throw new InvalidIdentityToken();
      const getKey = await keySet();
      try {
        const { payload } = await jwtVerify(token, getKey, {
          issuer: config.issuer,
          audience: config.clientId,
          algorithms,
          currentDate: deps.clock.now(),
          requiredClaims: ['sub', 'exp', 'iat'],
        });
        if (payload.token_use !== undefined && payload.token_use !== 'id') throw new InvalidIdentityToken();
        const email = typeof payload.email === 'string' ? payload.email : undefined;
        return { issuer: config.issuer, subject: payload.sub!, ...(email !== undefined ? { email } : {}) };
      } catch (error) {
        if (error instanceof InvalidIdentityToken) throw error;
        if (error instanceof errors.JWKSTimeout) throw new Unavailable(5, { cause: error });
        if (error instanceof errors.JOSEError) throw new InvalidIdentityToken();
        throw new Unavailable(5, { cause: error });
      }
    },
  };
}

/** The issuer's key set, from its discovery document (OpenID Connect Discovery 1.0). */
async function discoverKeys(issuer: string): Promise<JWTVerifyGetKey> {
  const response = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, {
    signal: AbortSignal.timeout(5000),
  });
  if (!response.ok) throw new Error(`discovery answered ${response.status}`);
  const document = (await response.json()) as { issuer?: string; jwks_uri?: string };
  if (document.issuer !== issuer || typeof document.jwks_uri !== 'string') throw new Error('discovery document does not match the issuer');
  return createRemoteJWKSet(new URL(document.jwks_uri), { timeoutDuration: 5000 });
}
