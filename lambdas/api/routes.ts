/**
 * The route table: the single source of truth for the HTTP surface. The CDK API construct makes
 * one method and one function per row; the local API Gateway emulator serves the same rows.
 * Plain data only, so that reading it pulls in no handler code.
 */
export interface RouteDefinition {
  /** Stable name; also binds cursors to their route. */
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** API Gateway resource path, with `{param}` placeholders. */
  readonly path: string;
  /**
   * Handler module under `lambdas/api/handlers/`, without extension. It exports the Lambda
   * `handler` and the `route` function that both runtimes wrap in the same pipeline.
   */
  readonly module: string;
  /** Whether the authorizer reserves a unit of allowance (contract: Limits, what is charged). */
  readonly charged: boolean;
  /** File bodies, streamed (API Gateway response streaming): no 6 MB cap on a buffered response. */
  readonly stream?: boolean;
  /**
   * Who may call: an API key (the default, through the REQUEST authorizer), or a signed-in
   * person's OIDC identity token (the console API: a Cognito authorizer in AWS, and the handler
   * verifies the token itself in both runtimes). Identity routes are never charged.
   */
  readonly auth?: 'identity';
}

export const routes = [
  { id: 'createEmail', method: 'POST', path: '/v1/emails', module: 'create-email', charged: true },
  { id: 'getEmail', method: 'GET', path: '/v1/emails/{email_id}', module: 'get-email', charged: true },
  { id: 'listMessages', method: 'GET', path: '/v1/emails/{email_id}/messages', module: 'list-messages', charged: true },
  { id: 'getMessage', method: 'GET', path: '/v1/messages/{message_id}', module: 'get-message', charged: true },
  {
    id: 'getMessageSource',
    method: 'GET',
    path: '/v1/messages/{message_id}/source',
    module: 'get-message-source',
    charged: true,
    stream: true,
  },
  {
    id: 'getAttachment',
    method: 'GET',
    path: '/v1/messages/{message_id}/attachments/{attachment_id}',
    module: 'get-attachment',
    charged: true,
    stream: true,
  },
  { id: 'listDomains', method: 'GET', path: '/v1/domains', module: 'list-domains', charged: true },
  { id: 'getUsage', method: 'GET', path: '/v1/usage', module: 'get-usage', charged: false },
  // The console API: what a signed-in customer sees and changes of their own account.
  { id: 'consoleGetAccount', method: 'GET', path: '/console/v1/account', module: 'console-get-account', charged: false, auth: 'identity' },
  { id: 'consoleListKeys', method: 'GET', path: '/console/v1/keys', module: 'console-list-keys', charged: false, auth: 'identity' },
  { id: 'consoleCreateKey', method: 'POST', path: '/console/v1/keys', module: 'console-create-key', charged: false, auth: 'identity' },
  {
    id: 'consoleRevokeKey',
    method: 'DELETE',
    path: '/console/v1/keys/{key_id}',
    module: 'console-revoke-key',
    charged: false,
    auth: 'identity',
  },
  { id: 'consoleListEmails', method: 'GET', path: '/console/v1/emails', module: 'console-list-emails', charged: false, auth: 'identity' },
] as const satisfies readonly RouteDefinition[];

export type RouteId = (typeof routes)[number]['id'];

/** The route for a method and an API Gateway resource path, as the authorizer receives them. */
export function routeForResource(method: string, resource: string): RouteDefinition | undefined {
  return routes.find((route) => route.method === method && route.path === resource);
}

export interface RouteMatch {
  route: RouteDefinition;
  pathParameters: Record<string, string>;
}

/** Matches a concrete request path against the table, as API Gateway's router does. */
export function matchRoute(method: string, path: string): RouteMatch | undefined {
  const segments = path.split('/');
  for (const route of routes) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/');
    if (pattern.length !== segments.length) continue;
    const pathParameters: Record<string, string> = {};
    const matches = pattern.every((part, index) => {
      const segment = segments[index]!;
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name === undefined) return part === segment;
      if (segment === '') return false;
      // A segment that does not percent-decode (a stray `%`) still names this route's
      // resource: the function answers for it (an id that cannot exist is a 404 in the
      // contract's shape), not the gateway's no-route answer on a documented route.
      pathParameters[name] = decodePathSegment(segment) ?? segment;
      return true;
    });
    if (matches) return { route, pathParameters };
  }
  return undefined;
}

function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
