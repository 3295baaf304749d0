import { oidcIdentityVerifier } from '../adapters/oidc/identity-token-verifier';
import type { IdentityVerifier } from '../core/ports/identity-verifier';
import type { Clock } from '../core/ports/clock';
import { functionEnvironmentNames, readFunctionEnvironment, requiredVariable } from './function-environment';

/** The console routes' verifier of identity tokens, of the issuer and client the stack gives them (function-manifest.ts: furtherVariables). */
export function lambdaIdentityVerifier(deps: { clock: Clock }): IdentityVerifier {
  const env = readFunctionEnvironment(process.env);
  const oidc = {
    issuer: requiredVariable(env[functionEnvironmentNames.oidcIssuer], functionEnvironmentNames.oidcIssuer),
    clientId: requiredVariable(env[functionEnvironmentNames.oidcClientId], functionEnvironmentNames.oidcClientId),
  };
  return oidcIdentityVerifier(oidc, deps);
}
