import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../lambdas/adapters/dynamodb/document-client';
import { localTableNames } from '../lambdas/adapters/dynamodb/table-definitions';
import type { RouteHandler } from '../lambdas/api/api-types';
import { createAuthorizer } from '../lambdas/api/authorizer';
import { createApiHandler } from '../lambdas/api/create-api-handler';
import { routes } from '../lambdas/api/routes';
import { createServices, type ApiServices } from '../lambdas/api/services';
import type { Clock } from '../lambdas/core/clock';
import { addDomain } from '../lambdas/core/domains';
import type { Logger } from '../lambdas/core/logger';
import { startApiGateway, type ProxyFunction } from './api-gateway';
import type { LocalConfig } from './config';
import { loadCursorSecret } from './cursor-secret';
import { announceEndpoint, runningEndpoint, withdrawEndpoint } from './endpoint-file';
import { ensureTables, startLocalDynamoDb } from './local-dynamodb';
import { smtpError, startSmtpIntake } from './smtp-intake';

export interface LocalRuntime {
  apiUrl: string;
  httpPort: number;
  smtpPort: number;
  dynamodbEndpoint: string;
  services: ApiServices;
  close(): Promise<void>;
}

export interface LocalOverrides {
  clock?: Clock;
  logger?: Logger;
  /** Sees the DynamoDB client before any use: tests add SDK middleware here to inject faults. */
  instrumentDynamoDb?: (client: DynamoDBDocumentClient) => void;
}

/**
 * The whole service on one machine (DESIGN: local operator interface): dynalite plays DynamoDB,
 * an HTTP front plays API Gateway, an SMTP listener plays SES. The functions it calls are the
 * ones that ship to Lambda.
 */
export async function startLocal(config: LocalConfig, overrides: LocalOverrides = {}): Promise<LocalRuntime> {
  if (config.dataDir) {
    await mkdir(config.dataDir, { recursive: true });
    const running = await runningEndpoint(config.dataDir);
    if (running) throw new Error(`another local service is using ${config.dataDir} (its DynamoDB answers at ${running})`);
  }
  const dynamodb = await startLocalDynamoDb({ path: config.dataDir && join(config.dataDir, 'dynamodb') });
  const tableNames = localTableNames();
  await ensureTables(dynamodb.endpoint, tableNames);
  const client = createDocumentClient({ endpoint: dynamodb.endpoint });
  overrides.instrumentDynamoDb?.(client);
  const services = createServices(
    {
      client,
      env: config.env,
      tableNames,
      cursorSecret: config.cursorSecret ?? (await loadCursorSecret(config.dataDir)),
      logLevel: config.logLevel,
      emailTtlSeconds: config.emailTtlSeconds,
    },
    overrides,
  );
  for (const domain of config.domains) await addDomain(domain, services);

  const gateway = await startApiGateway({
    host: config.host,
    port: config.port,
    authorizer: createAuthorizer(() => services),
    functions: await loadRouteFunctions(services),
  });
  const smtp = await startSmtpIntake({
    host: config.host,
    port: config.smtpPort,
    acceptRecipient: async () => {
      throw smtpError(550, '5.1.1 No such mailbox here');
    },
  });
  if (config.dataDir) await announceEndpoint(config.dataDir, dynamodb.endpoint);

  return {
    apiUrl: gateway.url,
    httpPort: gateway.port,
    smtpPort: smtp.port,
    dynamodbEndpoint: dynamodb.endpoint,
    services,
    close: async () => {
      await Promise.all([smtp.close(), gateway.close()]);
      if (config.dataDir) await withdrawEndpoint(config.dataDir);
      await dynamodb.close();
    },
  };
}

/** Each route of the table, wrapped in the same pipeline as its Lambda `handler`. */
async function loadRouteFunctions(services: ApiServices): Promise<Map<string, ProxyFunction>> {
  const functions = new Map<string, ProxyFunction>();
  for (const route of routes) {
    const module = (await import(`../lambdas/api/handlers/${route.module}`)) as { route?: RouteHandler };
    if (typeof module.route !== 'function') throw new Error(`Handler module ${route.module} exports no route`);
    functions.set(route.id, createApiHandler(module.route, () => services));
  }
  return functions;
}
