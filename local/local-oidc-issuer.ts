import { createHash, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeJwt, decodeProtectedHeader, SignJWT, type JSONWebKeySet } from 'jose';
import type { Clock } from '../lambdas/core/ports/clock';
import { cognitoLogout, type LogoutContext, type LogoutProvider } from './cognito-logout';
import { memoryAdapterFactory } from './oidc-memory-adapter';
import { refuseFraming } from './refuse-framing';

/** The console's client id at the local issuer (and the default a self-hoster replaces). */
export const localConsoleClientId = 'tempmail-console';

/** The parts of `oidc-provider` this module uses. */
interface OidcProvider extends LogoutProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  use(middleware: (ctx: IssuerContext, next: () => Promise<void>) => Promise<void>): void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ uid: string; prompt: { name: string } }>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: object, options?: object): Promise<void>;
  Grant: LogoutProvider['Grant'] &
    (new (properties: { clientId: string; accountId: string }) => {
      addOIDCScope(scope: string): void;
      save(): Promise<string>;
    });
}
/** The part of a request's Koa context that the token stamping and the sign-out read and write. */
interface IssuerContext extends LogoutContext {
  oidc?: { route?: string };
}
type ProviderClass = new (issuer: string, configuration: object) => OidcProvider & { proxy?: boolean };

/** A running local issuer, mounted under a path of the local front. */
export interface LocalOidcIssuer {
  issuer: string;
  clientId: string;
  /** The public keys its tokens are signed with, as its JWKS endpoint publishes them. */
  publicKeys: JSONWebKeySet;
  /** Answers a request under the mount path; false when the path is not the issuer's. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

/**
 * A standards-compliant OpenID Connect provider for `npm start` (the `oidc-provider` package):
 * discovery, JWKS, authorization code with PKCE, ID tokens signed with a key made at start. Its
 * sign-in page is marked as local: anyone may sign in (or up) with any email address and no
 * password, so it never belongs in front of real users. The console speaks to it as to any issuer,
 * and signs out at its `/logout` as at Cognito's. Nothing it serves may be framed.
 */
export async function startLocalOidcIssuer(options: {
  origin: string;
  mountPath: string;
  consoleUrl: string;
  /** The service's clock: the ID tokens' `iat` and `exp` are read from it, as the verifier reads them. */
  clock: Clock;
}): Promise<LocalOidcIssuer> {
  const issuer = `${options.origin}${options.mountPath}`;
  const { Provider } = loadOidcProvider();
  const emails = new Map<string, string>();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' };

  const provider = new Provider(issuer, {
    adapter: memoryAdapterFactory(() => options.clock.now().getTime()),
    clients: [
      {
        client_id: localConsoleClientId,
        token_endpoint_auth_method: 'none',
        redirect_uris: [options.consoleUrl],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    responseTypes: ['code'],
    scopes: ['openid', 'email'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // The console reads the email from the ID token, as it does from Cognito's.
    conformIdTokenClaims: false,
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    ttl: { AccessToken: 3600, AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 86_400, Grant: 86_400 },
    features: {
      devInteractions: { enabled: false },
      // Signing out is Cognito's /logout (below), which ends the session at once; the OpenID
      // end-session endpoint, with its confirmation page, is off and unnamed by discovery, as at Cognito.
      rpInitiatedLogout: { enabled: false },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${options.mountPath}/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, email: emails.get(sub), email_verified: true }),
    }),
    // The console is this issuer's own first-party client: no consent screen.
    loadExistingGrant: async (ctx: { oidc: { client: { clientId: string }; session: { accountId: string } } }) => {
      const grant = new provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email');
      await grant.save();
      return grant;
    },
    renderError: async (ctx: IssuerContext, out: { error: string; error_description?: string }) => {
      ctx.type = 'html';
      ctx.body = page('Sign-in failed', `<p>${escapeHtml(out.error)}: ${escapeHtml(out.error_description ?? '')}</p>`);
    },
  });
  provider.use(
    // The console's sign-out URL, as the stack registers it with Cognito (lib/console-identity.ts).
    cognitoLogout(provider, new Map([[localConsoleClientId, [options.consoleUrl]]]), (ctx, status, error, description) => {
      ctx.status = status;
      ctx.type = 'html';
      ctx.body = page('Sign-out failed', `<p>${escapeHtml(error)}: ${escapeHtml(description)}</p>`);
    }),
  );
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: unknown } | undefined;
    if (ctx.oidc?.route === 'token' && typeof body?.id_token === 'string') {
      body.id_token = await stampOnClock(body.id_token, options.clock, privateKey);
    }
  });
  const callback = provider.callback();
  const interactionPath = new RegExp(`^${options.mountPath}/interaction/([A-Za-z0-9_-]+)(/login)?$`);

  const { kid, alg, use } = signingKey;
  return {
    issuer,
    clientId: localConsoleClientId,
    publicKeys: { keys: [{ ...createPublicKey(privateKey).export({ format: 'jwk' }), kid, alg, use }] },
    async handle(req, res) {
      const url = new URL(req.url ?? '/', options.origin);
      if (url.pathname !== options.mountPath && !url.pathname.startsWith(`${options.mountPath}/`)) return false;
      refuseFraming(res);
      const interaction = interactionPath.exec(url.pathname);
      if (interaction) {
        await signInStep(provider, emails, req, res, interaction[2] !== undefined);
        return true;
      }
      // Mounted as Express mounts it: the provider sees its own path and finds its mount in originalUrl.
      Object.assign(req, { originalUrl: req.url, url: (req.url ?? '/').slice(options.mountPath.length) || '/' });
      callback(req, res);
      return true;
    },
  };
}

/**
 * oidc-provider stamps its tokens from the machine's clock and offers no clock of its own; the
 * verifier reads the service's injected clock. So the ID token it issued is signed again with the
 * same key, its time claims moved by the difference between the two clocks: one notion of time in
 * the process, and a test that moves the service's clock moves the token's age with it. Sessions
 * and cookies stay on the machine's clock, which the browser that keeps them shares.
 */
async function stampOnClock(idToken: string, clock: Clock, key: KeyObject): Promise<string> {
  const claims = decodeJwt(idToken);
  const header = decodeProtectedHeader(idToken);
  const shift = Math.floor(clock.now().getTime() / 1000) - (claims.iat ?? 0);
  if (shift === 0) return idToken;
  const moved: Record<string, unknown> = { ...claims };
  for (const name of ['iat', 'exp', 'nbf', 'auth_time']) {
    if (typeof moved[name] === 'number') moved[name] = (moved[name] as number) + shift;
  }
  return new SignJWT(moved).setProtectedHeader({ ...header, alg: header.alg ?? 'RS256' }).sign(key);
}

/**
 * oidc-provider ships ES modules only and the project is CommonJS: Node's own require loads ES
 * modules (Node 20.19 and later), and jest transpiles it (jest.config.js). Loaded at start, not at
 * import, so that reading the client id constant costs nothing.
 */
function loadOidcProvider(): { Provider: ProviderClass } {
  // oidc-provider 9 names Node 22 as its runtime and warns once, when it loads, under any other.
  // Under Node 20 (the project's floor, README) the local issuer passes the console's sign-in
  // suites, so that one understood warning is held back; any other warning still shows.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('oidc-provider WARNING: Unsupported runtime')) return;
    warn.apply(console, args);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('oidc-provider') as { Provider: ProviderClass };
  } finally {
    console.warn = warn;
  }
}

/** The local sign-in page, and the submission of its form. */
async function signInStep(
  provider: OidcProvider,
  emails: Map<string, string>,
  req: IncomingMessage,
  res: ServerResponse,
  submitted: boolean,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (!submitted || req.method !== 'POST') return sendPage(res, 200, signInPage(details.uid, req.url ?? ''));
  const email = new URLSearchParams(await readForm(req)).get('email')?.trim().toLowerCase() ?? '';
  if (!/^[^\s@]{1,64}@[^\s@]{1,253}$/.test(email)) {
    return sendPage(res, 400, signInPage(details.uid, req.url ?? '', 'Enter an email address.'));
  }
  const sub = `local-${createHash('sha256').update(email).digest('base64url').slice(0, 22)}`;
  emails.set(sub, email);
  await provider.interactionFinished(req, res, { login: { accountId: sub } }, { mergeWithLastSubmission: false });
}

function signInPage(uid: string, path: string, problem?: string): string {
  const action = `${path.replace(/\/login$/, '')}/login`;
  return page(
    'Local sign-in',
    `<p class="local-banner" role="note"><strong>Local identity provider.</strong> This sign-in page belongs to
the development runtime (<code>npm start</code>): any email address signs in, or signs up, without a password.
It is never used in AWS, where Amazon Cognito signs customers in.</p>
<form method="post" action="${escapeHtml(action)}" data-uid="${escapeHtml(uid)}">
  <label for="email">Email address</label>
  <input id="email" name="email" type="email" autocomplete="email" required autofocus>
  ${problem ? `<p class="problem" role="alert">${escapeHtml(problem)}</p>` : ''}
  <button type="submit">Sign in or sign up</button>
</form>`,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} (local)</title><link rel="stylesheet" href="/console/app.css"></head>
<body class="issuer"><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

function sendPage(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(html);
}

async function readForm(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > 4096) break;
  }
  return body;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
