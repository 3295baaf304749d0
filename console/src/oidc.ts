/**
 * Sign-in by plain OpenID Connect: authorization code with PKCE, a public client. Works with any
 * issuer that publishes a discovery document (Amazon Cognito, the local issuer of `npm start`).
 * The ID token lives in memory only; sessionStorage holds the one-time PKCE verifier, state and
 * nonce across the redirect, and a flag that this tab is signed in, never a token. A reload asks
 * the issuer again without a prompt (`prompt=none`): its own session answers, or nothing does.
 */
export interface ConsoleConfig {
  issuer: string;
  clientId: string;
  /** Cognito's `/logout` (its discovery document names no end-session endpoint), or the local issuer's of the same shape. */
  logoutEndpoint?: string;
  /** Whom to ask for more requests: the operator's contact, from configuration. */
  support?: string;
}

interface Discovery {
  authorization_endpoint: string;
  token_endpoint: string;
  end_session_endpoint?: string;
}

interface Pending {
  state: string;
  nonce: string;
  verifier: string;
  /** The view to return to (a hash), and whether this was a silent restore. */
  hash: string;
  silent: boolean;
}

const pendingKey = 'tempmail.console.pending';
const signedInKey = 'tempmail.console.signed-in';

export function redirectUri(): string {
  return new URL('./', location.href).href.split('?')[0]!.split('#')[0]!;
}

async function discover(config: ConsoleConfig): Promise<Discovery> {
  const response = await fetch(`${config.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error('The sign-in service is unavailable.');
  return (await response.json()) as Discovery;
}

function randomText(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Sends the browser to the issuer's sign-in (or sign-up) page; `silent` asks it not to prompt. */
export async function beginSignIn(config: ConsoleConfig, silent = false): Promise<void> {
  const discovery = await discover(config);
  const pending: Pending = { state: randomText(), nonce: randomText(), verifier: randomText(), hash: location.hash, silent };
  sessionStorage.setItem(pendingKey, JSON.stringify(pending));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pending.verifier))));
  const url = new URL(discovery.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: config.clientId,
    response_type: 'code',
    scope: 'openid email',
    redirect_uri: redirectUri(),
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(silent ? { prompt: 'none' } : {}),
  }).toString();
  location.assign(url.href);
}

/** Whether this tab was signed in before a reload: a flag only, the token is gone with the page. */
export function wasSignedIn(): boolean {
  return sessionStorage.getItem(signedInKey) === '1';
}

/**
 * Completes a sign-in whose code is in the address bar; the ID token, or undefined when none is
 * pending or a silent restore found no session at the issuer.
 */
export async function completeSignIn(config: ConsoleConfig): Promise<string | undefined> {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const state = params.get('state');
  if (!code && !params.get('error')) return undefined;
  const pending = JSON.parse(sessionStorage.getItem(pendingKey) ?? 'null') as Pending | null;
  sessionStorage.removeItem(pendingKey);
  history.replaceState(null, '', redirectUri() + (pending?.hash ?? ''));
  if (!code && pending?.silent && state === pending.state) {
    sessionStorage.removeItem(signedInKey);
    return undefined;
  }
  if (!code || !pending || state !== pending.state) throw new Error('The sign-in did not complete. Try again.');
  const discovery = await discover(config);
  const response = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(),
      client_id: config.clientId,
      code_verifier: pending.verifier,
    }),
  });
  if (!response.ok) throw new Error('The sign-in did not complete. Try again.');
  const tokens = (await response.json()) as { id_token?: string };
  const idToken = tokens.id_token;
  if (!idToken || claims(idToken).nonce !== pending.nonce) throw new Error('The sign-in answer was not for this page.');
  sessionStorage.setItem(signedInKey, '1');
  return idToken;
}

/** The claims of a token, unverified: the service verifies the signature on every call. */
export function claims(token: string): Record<string, unknown> {
  const part = token.split('.')[1] ?? '';
  return JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
}

/**
 * Where signing out goes: the issuer's sign-out, so that its session ends too and the next
 * sign-in asks again. Cognito's `/logout?client_id&logout_uri` where `config.json` names it (the
 * stack in AWS, and the local issuer of `npm start`, which answers it the same way); otherwise
 * OpenID RP-initiated logout where discovery names an end-session endpoint (another issuer);
 * the console's own page when neither exists.
 */
export async function signOutUrl(config: ConsoleConfig): Promise<string> {
  sessionStorage.removeItem(signedInKey);
  if (config.logoutEndpoint) {
    const url = new URL(config.logoutEndpoint);
    url.search = new URLSearchParams({ client_id: config.clientId, logout_uri: redirectUri() }).toString();
    return url.href;
  }
  const discovery = await discover(config).catch(() => undefined);
  if (discovery?.end_session_endpoint) {
    const url = new URL(discovery.end_session_endpoint);
    url.search = new URLSearchParams({ client_id: config.clientId, post_logout_redirect_uri: redirectUri() }).toString();
    return url.href;
  }
  return redirectUri();
}
