import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../lambdas/adapters/dynamodb/document-client';
import { localTableNames } from '../lambdas/adapters/dynamodb/table-definitions';
import type { RouteHandler } from '../lambdas/api/api-types';
import { createAuthorizer } from '../lambdas/api/authorizer';
import { createApiHandler } from '../lambdas/api/create-api-handler';
import { createConsoleHandler } from '../lambdas/api/create-console-handler';
import type { ConsoleRouteHandler } from '../lambdas/api/api-types';
import { oidcIdentityVerifier } from '../lambdas/adapters/oidc/identity-token-verifier';
import type { IdentityVerifier } from '../lambdas/core/ports/identity-verifier';
import { routes, type RouteDefinition } from '../lambdas/api/routes';
import { authorizerFunction, routeEntry, sweeperFunction } from '../lambdas/function-manifest';
import { createServices, type BlobServices, type ConsoleServices, type CursorServices } from '../lambdas/composition/services';
import { systemClock } from '../lambdas/adapters/system-clock';
import type { Clock } from '../lambdas/core/ports/clock';
import { addDomain } from '../lambdas/core/domains';
import { sweepExpired, type SweepResult, type SweepRun } from '../lambdas/mail/sweep-expired';
import { DirectoryBlobStore } from '../lambdas/adapters/blobs/directory-blob-store';
import type { BlobStore } from '../lambdas/core/ports/blob-store';
import type { Logger } from '../lambdas/core/ports/logger';
import { startApiGateway, type ProxyFunction, type RouteFunction, type StreamingFunction } from './api-gateway';
import { installLambdaResponseStreaming } from './lambda-response-streaming';
import { routeTableApi } from './route-table-api';
import { blobDirectory } from './blob-directory';
import type { LocalConfig } from './config';
import { loadCursorSecret } from './cursor-secret';
import { startConsoleFront, type ConsoleFront } from './console-front';
import { claimDataDir } from './claim-data-dir';
import { announceEndpoint, withdrawEndpoint } from './endpoint-file';
import { ensureTables, startLocalDynamoDb } from './local-dynamodb';
import { runAsIs, type FunctionScope } from './function-scope';
import { smtpDelivery } from './smtp-delivery';
import { startSmtpIntake } from './smtp-intake';
import { threadHtmlRenderer } from './thread-html-renderer';

export interface LocalRuntime {
  apiUrl: string;
  /** The web console, and the OpenID Connect issuer it signs in with. */
  consoleUrl: string;
  issuer: string;
  httpPort: number;
  smtpPort: number;
  dynamodbEndpoint: string;
  services: BlobServices;
  /**
   * Runs the expiry sweeper once now (it also runs every 30 seconds on its own), by default with
   * the deployed function's budget: 40 seconds of the runtime's clock and the default limits.
   */
  sweep(run?: Partial<SweepRun>): Promise<SweepResult>;
  close(): Promise<void>;
}

/** The local sweeper's period: expired mail is gone well within the 2 minutes promised. */
const sweepIntervalMs = 30_000;
/** A run's time as the deployed sweeper has it: its 55-second timeout less the reserve for batches in flight. */
const sweepBudgetMs = 40_000;

export interface LocalOverrides {
  clock?: Clock;
  logger?: Logger;
  /** Sees the DynamoDB client before any use: tests add SDK middleware here to inject faults or record calls. */
  instrumentDynamoDb?: (client: DynamoDBDocumentClient) => void;
  /** Runs each function's code in a scope named by its Lambda entry: the permission check's suites record calls per function with it. */
  asFunction?: FunctionScope;
  /** Wraps the blob store: tests inject storage failures here. */
  wrapBlobs?: (blobs: BlobStore) => BlobStore;
  /**
   * Whether the sweeper also runs on its own every 30 seconds (default true). A test that moves
   * its clock runs `sweep()` itself, so that no sweep lands in the middle of what it measures.
   */
  backgroundSweep?: boolean;
}

/**
 * The whole service on one machine (DESIGN: local operator interface): dynalite plays DynamoDB,
 * an HTTP front plays API Gateway, an SMTP listener plays SES. The functions it calls are the
 * ones that ship to Lambda.
 */
export async function startLocal(config: LocalConfig, overrides: LocalOverrides = {}): Promise<LocalRuntime> {
  await claimDataDir(config.dataDir);
  const dynamodb = await startLocalDynamoDb({ path: config.dataDir && join(config.dataDir, 'dynamodb') });
  const tableNames = localTableNames();
  await ensureTables(dynamodb.endpoint, tableNames);
  const client = createDocumentClient({ endpoint: dynamodb.endpoint, requestHandler: dynamodb.requestHandler });
  overrides.instrumentDynamoDb?.(client);
  const asFunction = overrides.asFunction ?? runAsIs;
  // This runtime holds the cursor secret for every route, as one process serves them all.
  const blobFolder = await blobDirectory(config.dataDir);
  const services: CursorServices<BlobServices> = {
    ...createServices(
      {
        client,
        env: config.env,
        tableNames,
        cursorSecret: config.cursorSecret ?? (await loadCursorSecret(config.dataDir)),
        logLevel: config.logLevel,
        emailTtlSeconds: config.emailTtlSeconds,
        messageTtlSeconds: config.messageTtlSeconds,
        shortWindow: config.shortWindow,
      },
      overrides,
    ),
    blobs: (overrides.wrapBlobs ?? ((blobs) => blobs))(new DirectoryBlobStore(blobFolder.root, overrides.clock ?? systemClock)),
  };
  for (const domain of config.domains) await addDomain(domain, services);

  // The console's issuer is known once the front listens (its URL holds the port).
  let front: ConsoleFront | undefined;
  let verifier: IdentityVerifier | undefined;
  const consoleServices: CursorServices<ConsoleServices> = { ...services, identityVerifier: { verify: (token) => verifier!.verify(token) } };
  const gateway = await startApiGateway({
    host: config.host,
    port: config.port,
    api: routeTableApi(asFunction(authorizerFunction.entry, createAuthorizer(() => services)), await loadRouteFunctions(services, consoleServices, asFunction)),
    front: (req, res) => (front ? front.handle(req, res) : Promise.resolve(false)),
  });
  front = await startConsoleFront({
    origin: gateway.url,
    clock: services.clock,
    ...(config.oidc ? { issuer: config.oidc } : {}),
    ...(config.supportContact ? { support: config.supportContact } : {}),
  });
  verifier = oidcIdentityVerifier({ issuer: front.issuer, clientId: front.clientId }, services);
  // A large HTML mail's renderings run off the event loop the HTTP front answers on.
  const renderer = threadHtmlRenderer();
  const smtp = await startSmtpIntake({ host: config.host, port: config.smtpPort, ...smtpDelivery(services, asFunction, renderer) });
  // Where the last run's look at inbound/ stopped, as a warm sweeper function keeps it.
  let inboundAfter: string | undefined;
  const sweep = asFunction(sweeperFunction.entry, async (run: Partial<SweepRun> = {}) => {
    const deadline = new Date(services.clock.now().getTime() + sweepBudgetMs);
    const result = await sweepExpired(services, { deadline, inboundAfter, ...run });
    inboundAfter = result.inboundAfter;
    return result;
  });
  // The sweep in flight, so that closing waits for it instead of closing the store under it.
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweeper = setInterval(() => {
    if (overrides.backgroundSweep === false) return;
    sweeping = sweep().catch((error: Error) => services.logger.error('sweep failed', { error: error.name }));
  }, sweepIntervalMs);
  sweeper.unref();
  if (config.dataDir) await announceEndpoint(config.dataDir, dynamodb.endpoint);

  return {
    apiUrl: gateway.url,
    consoleUrl: `${gateway.url}/console/`,
    issuer: front.issuer,
    httpPort: gateway.port,
    smtpPort: smtp.port,
    dynamodbEndpoint: dynamodb.endpoint,
    services,
    sweep,
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([smtp.close(), gateway.close(), sweeping]);
      await renderer.close();
      if (config.dataDir) await withdrawEndpoint(config.dataDir);
      await dynamodb.close();
      await blobFolder.release();
    },
  };
}

/** Each route of the table, wrapped in the same pipeline as its Lambda `handler`. */
async function loadRouteFunctions(
  services: CursorServices<BlobServices>,
  consoleServices: CursorServices<ConsoleServices>,
  asFunction: FunctionScope,
): Promise<Map<string, RouteFunction>> {
  installLambdaResponseStreaming();
  const functions = new Map<string, RouteFunction>();
  for (const route of routes as readonly RouteDefinition[]) {
    const module = (await import(`../lambdas/api/handlers/${route.module}`)) as {
      route?: unknown;
      exhaustedRoute?: RouteHandler<CursorServices<BlobServices>>;
    };
    if (typeof module.route !== 'function') throw new Error(`Handler module ${route.module} exports no route`);
    const handler: unknown =
      route.auth === 'identity'
        ? createConsoleHandler(module.route as ConsoleRouteHandler<CursorServices<ConsoleServices>>, () => consoleServices)
        : createApiHandler(module.route as RouteHandler<CursorServices<BlobServices>>, () => services, {
            stream: route.stream,
            exhaustedRoute: module.exhaustedRoute,
          });
    const entry = routeEntry(route);
    functions.set(
      route.id,
      route.stream
        ? { mode: 'streamed', fn: asFunction(entry, handler as StreamingFunction) }
        : { mode: 'buffered', fn: asFunction(entry, handler as ProxyFunction) },
    );
  }
  return functions;
}
