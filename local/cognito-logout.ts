/** The part of a request's Koa context the sign-out reads and answers with. */
export interface LogoutContext {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  status: number;
  type: string;
  body?: unknown;
  set(name: string, value: string): void;
  redirect(url: string): void;
  cookies: { set(name: string, value: null, options: object): void };
}

/** The parts of `oidc-provider` the sign-out uses. */
export interface LogoutProvider {
  Session: { get(ctx: LogoutContext): Promise<{ authorizations?: Record<string, { grantId?: string }>; destroy(): Promise<void> }> };
  Client: { find(id: string): Promise<{ clientId: string; redirectUriAllowed(uri: string): boolean } | undefined> };
  Grant: { find(id: string): Promise<{ destroy(): Promise<void> } | undefined> };
  cookieName(type: 'session'): string;
  pathFor(route: 'authorization'): string;
}

/** Answers a refused sign-out: the status, an OAuth error code and a sentence for a person. */
export type LogoutRefusal = (ctx: LogoutContext, status: number, error: string, description: string) => void;

/**
 * Each client's allowed sign-out URLs (Cognito's `LogoutURLs`), matched exactly. Kept here, not in
 * oidc-provider's client metadata, which drops `post_logout_redirect_uris` with its own logout off.
 */
export type SignOutUrls = ReadonlyMap<string, readonly string[]>;

/**
 * Amazon Cognito's `GET /logout` on the local issuer, with its parameters and checks, so that the
 * console signs out locally by the URL it uses in AWS: `client_id` is required and must name a
 * client; with `logout_uri` (one of the client's registered sign-out URLs) the session ends and
 * the browser goes there at once, no confirmation page; with `redirect_uri` (one of its callback
 * URLs) it goes on to sign in again with the request's other parameters. Anything else is refused
 * and signs nobody out. Cognito's documentation: "The managed login sign-out endpoint: /logout",
 * https://docs.aws.amazon.com/cognito/latest/developerguide/logout-endpoint.html
 */
export function cognitoLogout(provider: LogoutProvider, signOutUrls: SignOutUrls, refuse: LogoutRefusal) {
  return async (ctx: LogoutContext, next: () => Promise<void>): Promise<void> => {
    if (ctx.path !== '/logout') return next();
    ctx.set('Cache-Control', 'no-store');
    if (ctx.method !== 'GET') {
      ctx.set('Allow', 'GET');
      return refuse(ctx, 405, 'invalid_request', 'The sign-out endpoint answers GET only.');
    }
    const params = new Map<string, string>();
    for (const [name, value] of Object.entries(ctx.query)) {
      if (Array.isArray(value)) return refuse(ctx, 400, 'invalid_request', `The parameter ${name} is given more than once.`);
      if (value !== undefined) params.set(name, value);
    }
    const clientId = params.get('client_id');
    const client = clientId ? await provider.Client.find(clientId) : undefined;
    if (!client) return refuse(ctx, 400, 'invalid_request', 'client_id must name a registered client.');

    const logoutUri = params.get('logout_uri');
    const redirectUri = params.get('redirect_uri');
    let destination: string;
    if (logoutUri !== undefined) {
      if (!signOutUrls.get(client.clientId)?.includes(logoutUri)) {
        return refuse(ctx, 400, 'redirect_mismatch', 'logout_uri is not one of this client\'s sign-out URLs.');
      }
      destination = logoutUri;
    } else if (redirectUri !== undefined) {
      if (!client.redirectUriAllowed(redirectUri)) {
        return refuse(ctx, 400, 'redirect_mismatch', 'redirect_uri is not one of this client\'s callback URLs.');
      }
      destination = `${provider.pathFor('authorization')}?${new URLSearchParams([...params]).toString()}`;
    } else {
      return refuse(ctx, 400, 'invalid_request', 'Either logout_uri or redirect_uri is required.');
    }

    await endSession(provider, ctx);
    ctx.status = 302;
    ctx.redirect(destination);
  };
}

/** Ends the browser's session and the grants it holds, and clears its cookie. */
async function endSession(provider: LogoutProvider, ctx: LogoutContext): Promise<void> {
  const session = await provider.Session.get(ctx);
  for (const { grantId } of Object.values(session.authorizations ?? {})) {
    if (grantId) await (await provider.Grant.find(grantId))?.destroy();
  }
  await session.destroy();
  ctx.cookies.set(provider.cookieName('session'), null, { httpOnly: true, sameSite: 'lax' });
}
