import { createHash, randomBytes } from 'node:crypto';
import { contractFetch } from './contract';

/** A browser's cookies for one site: what its answers set, sent back with its next requests. */
export type CookieJar = Map<string, string>;

/** Sends a request as a browser with this jar would, following no redirect; keeps what the answer sets. */
export async function sendWithCookies(cookies: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const response = await contractFetch(url, {
    ...init,
    redirect: 'manual',
    headers: { ...(init.headers as Record<string, string>), cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
  });
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    const name = pair!.slice(0, at).trim();
    const value = pair!.slice(at + 1);
    // A cookie set empty or already expired is the site deleting it, as a browser drops it.
    if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name);
    else cookies.set(name, value);
  }
  return response;
}

/**
 * Signs in at an OpenID Connect issuer as a browser would, over real HTTP: the authorization
 * request with PKCE, the issuer's sign-in form, the redirect back with a code, the token
 * exchange. Returns the ID token. Meant for the local issuer of `npm start`. The cookies the
 * issuer sets (its session) are kept in `cookies` when a test gives its own jar.
 */
export async function signIn(options: { issuer: string; clientId: string; redirectUri: string; email: string; cookies?: CookieJar }): Promise<string> {
  const cookies = options.cookies ?? new Map<string, string>();
  const send = (url: string, init: RequestInit = {}) => sendWithCookies(cookies, url, init);
  const absolute = (location: string | null) => new URL(location ?? '', options.issuer).href;
  const discovery = (await (await contractFetch(`${options.issuer}/.well-known/openid-configuration`)).json()) as {
    authorization_endpoint: string;
    token_endpoint: string;
  };
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const authorize = new URL(discovery.authorization_endpoint);
  authorize.search = new URLSearchParams({
    client_id: options.clientId,
    response_type: 'code',
    scope: 'openid email',
    redirect_uri: options.redirectUri,
    state,
    nonce: randomBytes(16).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();

  let response = await send(authorize.href);
  const interaction = absolute(response.headers.get('location'));
  response = await send(interaction);
  if (response.status !== 200) throw new Error(`sign-in page answered ${response.status}`);
  response = await send(`${interaction}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: options.email }).toString(),
  });
  let location = absolute(response.headers.get('location'));
  while (!location.startsWith(options.redirectUri)) {
    response = await send(location);
    if (response.status < 300 || response.status > 399) throw new Error(`sign-in stopped at ${response.status}: ${await response.text()}`);
    location = absolute(response.headers.get('location'));
  }
  const back = new URL(location).searchParams;
  if (back.get('state') !== state || !back.get('code')) throw new Error(`sign-in returned no code: ${location}`);
  const token = await contractFetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.get('code')!,
      redirect_uri: options.redirectUri,
      client_id: options.clientId,
      code_verifier: verifier,
    }).toString(),
  });
  const tokens = (await token.json()) as { id_token?: string };
  if (!tokens.id_token) throw new Error(`token endpoint gave no ID token: ${JSON.stringify(tokens)}`);
  return tokens.id_token;
}
