import { routes, type RouteDefinition } from './api/routes';
import { allowance, type FunctionAccess } from './function-access';
import { functionEnvironmentNames } from './composition/function-environment';

/** What invokes a function. */
export type FunctionTrigger =
  | { readonly kind: 'route'; readonly route: RouteDefinition }
  | { readonly kind: 'authorizer' }
  /** An action of the stage's SES receipt rule: the recipient filter answers it, the parser runs after it. */
  | { readonly kind: 'receipt-rule'; readonly invocation: 'RequestResponse' | 'Event' }
  | { readonly kind: 'schedule'; readonly everyMinutes: number };

/**
 * One function of the service, declared once: its entry (project-relative, exporting `handler`),
 * what invokes it, and what it may touch. The CDK stack grants from it, the local runtimes name
 * each function's calls by its entry, and the permission check judges those calls against it.
 */
export interface FunctionDeclaration {
  /** Stable name: the route id for an API route. */
  readonly name: string;
  readonly entry: string;
  readonly trigger: FunctionTrigger;
  readonly access: FunctionAccess;
}

/** The entry of an API route's function. */
export function routeEntry(route: Pick<RouteDefinition, 'module'>): string {
  return `lambdas/api/handlers/${route.module}.ts`;
}

export const authorizerFunction = {
  name: 'authorizer',
  entry: 'lambdas/api/authorizer.ts',
  trigger: { kind: 'authorizer' },
  // It reads the key, then reserves a unit of the account's allowance.
  access: { tables: { apiKeys: ['GetItem'], ...allowance } },
} as const satisfies FunctionDeclaration;

export const recipientFilterFunction = {
  name: 'recipientFilter',
  entry: 'lambdas/inbound/recipient-filter.ts',
  trigger: { kind: 'receipt-rule', invocation: 'RequestResponse' },
  // The recipient lookup (core/recipients.ts): one BatchGetItem of the domains and the address registry, then each matched email.
  access: { tables: { domains: ['BatchGetItem'], addresses: ['BatchGetItem'], emails: ['GetItem'] } },
} as const satisfies FunctionDeclaration;

export const parserFunction = {
  name: 'parser',
  entry: 'lambdas/inbound/ses-parser.ts',
  trigger: { kind: 'receipt-rule', invocation: 'Event' },
  access: {
    // The registry of the recipients in one BatchGetItem; then one more reads their domains, their emails and
    // the delivery's copies under both windows' ids (a retried event delivers once, an expired one anew).
    tables: { addresses: ['BatchGetItem'], domains: ['BatchGetItem'], emails: ['BatchGetItem'], messages: ['BatchGetItem', 'PutItem'] },
    // A mail whose lifetime passed before its event ran is dropped with its raw copy (ingest-mail.ts).
    blobs: { read: ['inbound/'], write: ['mail/'], delete: ['inbound/'] },
  },
} as const satisfies FunctionDeclaration;

export const sweeperFunction = {
  name: 'sweeper',
  entry: 'lambdas/inbound/sweeper.ts',
  trigger: { kind: 'schedule', everyMinutes: 1 },
  access: {
    // It reads the expiry index and deletes what it found, 25 items a call: nothing else of the table.
    tables: { messages: ['Query', 'BatchWriteItem'] },
    blobs: { delete: ['mail/', 'inbound/'], list: ['mail/', 'inbound/'] },
  },
} as const satisfies FunctionDeclaration;

/** The functions that serve the API's routes, one per row of the route table. */
export const routeFunctions: readonly FunctionDeclaration[] = (routes as readonly RouteDefinition[]).map((route) => ({
  name: route.id,
  entry: routeEntry(route),
  trigger: { kind: 'route', route },
  access: route.access,
}));

/**
 * The manifest: every function of the service (the deployment's custom-resource function aside,
 * which serves CloudFormation, not the service). Adding an API route is its handler and its row.
 */
export const functionManifest: readonly FunctionDeclaration[] = [
  authorizerFunction,
  ...routeFunctions,
  recipientFilterFunction,
  parserFunction,
  sweeperFunction,
];

/**
 * The variables a function gets beyond the common environment: the cursor secret's ARN where it
 * reads the secret, the OpenID Connect issuer and client where it verifies identity tokens.
 */
export function furtherVariables(declaration: FunctionDeclaration): string[] {
  return [
    ...(readsCursorSecret(declaration) ? [functionEnvironmentNames.cursorSecretArn] : []),
    ...(verifiesIdentity(declaration) ? [functionEnvironmentNames.oidcIssuer, functionEnvironmentNames.oidcClientId] : []),
  ];
}

/*
 * What a declaration asks of the composition beyond the API's services, each asked in one way
 * only: by the stack (its variables, its bundle's constants) and by the Lambda composition (the
 * services it builds) alike.
 */

/** It reads or writes blobs: its services hold the blob store, its bundle the S3 client. */
export function touchesBlobs(declaration: Pick<FunctionDeclaration, 'access'>): boolean {
  return declaration.access.blobs !== undefined;
}

/** It signs or reads list cursors: its route is handed the cursor secret, read from Secrets Manager. */
export function readsCursorSecret(declaration: Pick<FunctionDeclaration, 'access'>): boolean {
  return declaration.access.secrets?.includes('cursor') ?? false;
}

/** A console route: it verifies the caller's identity token instead of the key authorizer's decision. */
export function verifiesIdentity(declaration: Pick<FunctionDeclaration, 'trigger'>): boolean {
  const { trigger } = declaration;
  return trigger.kind === 'route' && trigger.route.auth === 'identity';
}
