import { allowance, firstSignIn, type FunctionAccess } from '../function-access';

/**
 * The route table: the single source of truth for the HTTP surface, and the API's part of the
 * function manifest (lambdas/function-manifest.ts). The CDK API construct makes one method and one
 * function per row, granted what the row's `access` declares; the local API Gateway emulator serves
 * the same rows. Plain data only, so that reading it pulls in no handler code.
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
  /** The tables, blob prefixes and secrets its code uses: its role's grants, and nothing more. */
  readonly access: FunctionAccess;
}

export const routes = [
  {
    id: 'createEmail',
    method: 'POST',
    path: '/v1/emails',
    module: 'create-email',
    charged: true,
    access: {
      tables: {
        ...allowance,
        domains: ['GetItem', 'Scan'],
        emails: ['GetItem', 'PutItem'],
        addresses: ['GetItem', 'PutItem'],
        idempotency: ['GetItem', 'PutItem', 'UpdateItem'],
      },
    },
  },
  {
    id: 'getEmail',
    method: 'GET',
    path: '/v1/emails/{email_id}',
    module: 'get-email',
    charged: true,
    access: { tables: { ...allowance, emails: ['GetItem'] } },
  },
  {
    id: 'listMessages',
    method: 'GET',
    path: '/v1/emails/{email_id}/messages',
    module: 'list-messages',
    charged: true,
    access: { tables: { ...allowance, emails: ['GetItem'], messages: ['Query'] }, secrets: ['cursor'] },
  },
  {
    id: 'getMessage',
    method: 'GET',
    path: '/v1/messages/{message_id}',
    module: 'get-message',
    charged: true,
    access: { tables: { ...allowance, messages: ['GetItem'] }, blobs: { read: ['mail/'] } },
  },
  {
    id: 'getMessageSource',
    method: 'GET',
    path: '/v1/messages/{message_id}/source',
    module: 'get-message-source',
    charged: true,
    stream: true,
    access: { tables: { ...allowance, messages: ['GetItem'] }, blobs: { read: ['mail/', 'inbound/'] } },
  },
  {
    id: 'getAttachment',
    method: 'GET',
    path: '/v1/messages/{message_id}/attachments/{attachment_id}',
    module: 'get-attachment',
    charged: true,
    stream: true,
    access: { tables: { ...allowance, messages: ['GetItem'] }, blobs: { read: ['mail/'] } },
  },
  {
    id: 'listDomains',
    method: 'GET',
    path: '/v1/domains',
    module: 'list-domains',
    charged: true,
    access: { tables: { ...allowance, domains: ['Scan'] }, secrets: ['cursor'] },
  },
  { id: 'getUsage', method: 'GET', path: '/v1/usage', module: 'get-usage', charged: false, access: { tables: allowance } },
  // The console API: what a signed-in customer sees and changes of their own account.
  {
    id: 'consoleGetAccount',
    method: 'GET',
    path: '/console/v1/account',
    module: 'console-get-account',
    charged: false,
    auth: 'identity',
    access: { tables: firstSignIn },
  },
  {
    id: 'consoleListKeys',
    method: 'GET',
    path: '/console/v1/keys',
    module: 'console-list-keys',
    charged: false,
    auth: 'identity',
    access: { tables: { ...firstSignIn, apiKeys: ['Query'] } },
  },
  {
    id: 'consoleCreateKey',
    method: 'POST',
    path: '/console/v1/keys',
    module: 'console-create-key',
    charged: false,
    auth: 'identity',
    access: { tables: { ...firstSignIn, apiKeys: ['Query', 'PutItem'] } },
  },
  {
    id: 'consoleRevokeKey',
    method: 'DELETE',
    path: '/console/v1/keys/{key_id}',
    module: 'console-revoke-key',
    charged: false,
    auth: 'identity',
    access: { tables: { ...firstSignIn, apiKeys: ['Query', 'UpdateItem'] } },
  },
  {
    id: 'consoleListEmails',
    method: 'GET',
    path: '/console/v1/emails',
    module: 'console-list-emails',
    charged: false,
    auth: 'identity',
    access: { tables: { ...firstSignIn, emails: ['Query'] }, secrets: ['cursor'] },
  },
] as const satisfies readonly RouteDefinition[];

export type RouteId = (typeof routes)[number]['id'];

/** The route for a method and an API Gateway resource path, as the authorizer receives them. */
export function routeForResource(method: string, resource: string): RouteDefinition | undefined {
  return routes.find((route) => route.method === method && route.path === resource);
}

/**
 * What the API declares beside its routes, read by the CDK construct (lib/api.ts) and by the API
 * `npm start` serves: every media type binary (file bodies leave the functions base64-encoded),
 * and the key authorizer's identity source and result caching. Its identity source is the
 * request id, never the `Authorization` header (the gateway would answer a missing one with its
 * own 401), so its result is never reused across requests.
 */
export const apiDeclaration = {
  binaryMediaTypes: ['*/*'],
  keyAuthorizer: { identitySources: ['context.requestId'], resultTtlSeconds: 0 },
} as const;

/** What the router needs of a method: its HTTP method (or `ANY`) and its resource path. */
export interface RoutedMethod {
  readonly method: string;
  readonly path: string;
}

export interface RouteMatch<R extends RoutedMethod = RouteDefinition> {
  route: R;
  pathParameters: Record<string, string>;
}

/**
 * Matches a concrete request path as API Gateway's router does: first the resource, a literal
 * segment winning over a `{param}` one at the first place they differ, then that resource's
 * method. A resource without the method is no match, even where a `{param}` sibling has it.
 */
export function matchRoute<R extends RoutedMethod>(method: string, path: string, table: readonly R[]): RouteMatch<R> | undefined {
  const segments = path.split('/');
  let best: { path: string; pathParameters: Record<string, string> } | undefined;
  for (const candidate of new Set(table.map((route) => route.path))) {
    const pathParameters = parametersOf(candidate, segments);
    if (pathParameters && (!best || moreLiteral(candidate, best.path))) best = { path: candidate, pathParameters };
  }
  const route = best && table.find((entry) => entry.path === best.path && (entry.method === method || entry.method === 'ANY'));
  return route && best ? { route, pathParameters: best.pathParameters } : undefined;
}

/** The path parameters of a request path under a resource path, or undefined when it does not fit. */
function parametersOf(resourcePath: string, segments: string[]): Record<string, string> | undefined {
  const pattern = resourcePath.split('/');
  if (pattern.length !== segments.length) return undefined;
  const pathParameters: Record<string, string> = {};
  const fits = pattern.every((part, index) => {
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
  return fits ? pathParameters : undefined;
}

/** Whether a resource path has a literal segment where the other has a `{param}`, at the first place they differ. */
function moreLiteral(path: string, than: string): boolean {
  const other = than.split('/');
  for (const [index, part] of path.split('/').entries()) {
    const isParameter = part.startsWith('{');
    if (isParameter !== other[index]!.startsWith('{')) return !isParameter;
  }
  return false;
}

function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
