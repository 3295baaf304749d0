import type { SignedInIdentity } from '../identities';

/**
 * Turns the console's bearer identity token into the signed-in identity, or refuses it: a
 * missing, forged, expired or foreign token throws `InvalidIdentityToken` (401); an issuer whose
 * keys cannot be fetched throws `Unavailable` (503), since the token may well be good.
 */
export interface IdentityVerifier {
  verify(token: string | undefined): Promise<SignedInIdentity>;
}
