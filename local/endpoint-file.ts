import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '../lambdas/adapters/dynamodb/document-client';

/**
 * The file in a data directory through which a running local service announces its DynamoDB
 * endpoint: the operator CLI finds the service's tables through it, and a second service on the
 * same directory knows to stop.
 */
const endpointFileName = 'dynamodb-endpoint';

export async function announceEndpoint(dataDir: string, endpoint: string): Promise<void> {
  await writeFile(join(dataDir, endpointFileName), `${endpoint}\n`);
}

export async function withdrawEndpoint(dataDir: string): Promise<void> {
  await rm(join(dataDir, endpointFileName), { force: true });
}

/** The endpoint a running local service announced in a data directory, if it still answers. */
export async function runningEndpoint(dataDir: string): Promise<string | undefined> {
  let endpoint: string;
  try {
    endpoint = (await readFile(join(dataDir, endpointFileName), 'utf8')).trim();
  } catch {
    return undefined;
  }
  const client = createDocumentClient({ endpoint });
  try {
    await client.send(new ListTablesCommand({}));
    return endpoint;
  } catch {
    return undefined;
  } finally {
    client.destroy();
  }
}

/**
 * The file through which `npm run start:stack` announces the receipt rule's dead-letter queue (in
 * its SQS emulator, which lives as long as the stack runs): the operator CLI's `mail redrive`
 * reads it from there, as it reads the receipt rule's dead letters from SQS in AWS.
 */
const deadLetterQueueFileName = 'dead-letter-queue.json';

export interface AnnouncedQueue {
  /** The SQS endpoint to send the calls to. */
  endpoint: string;
  queueUrl: string;
}

export async function announceDeadLetterQueue(dataDir: string, queue: AnnouncedQueue): Promise<void> {
  await writeFile(join(dataDir, deadLetterQueueFileName), `${JSON.stringify(queue)}\n`);
}

export async function withdrawDeadLetterQueue(dataDir: string): Promise<void> {
  await rm(join(dataDir, deadLetterQueueFileName), { force: true });
}

/** The dead-letter queue a running `npm run start:stack` announced in a data directory, if any. */
export async function announcedDeadLetterQueue(dataDir: string): Promise<AnnouncedQueue | undefined> {
  try {
    return JSON.parse(await readFile(join(dataDir, deadLetterQueueFileName), 'utf8')) as AnnouncedQueue;
  } catch {
    return undefined;
  }
}

/**
 * The file through which a running `npm start` or `npm run start:stack` announces where it serves
 * and, for the stack, the domains its receipt rule covers: the operator CLI prints the first for
 * `account create --format env`, and refuses a `domain add` the second does not cover.
 */
const serviceFileName = 'service.json';

export interface AnnouncedService {
  apiUrl: string;
  smtpPort: number;
  /** The environment its keys are bound to (`TEMPMAIL_ENV`). */
  env: string;
  /** The receipt rule's domains (`npm run start:stack`); absent where every registered domain receives. */
  receiptRuleDomains?: string[];
}

export async function announceService(dataDir: string, service: AnnouncedService): Promise<void> {
  await writeFile(join(dataDir, serviceFileName), `${JSON.stringify(service)}\n`);
}

export async function withdrawService(dataDir: string): Promise<void> {
  await rm(join(dataDir, serviceFileName), { force: true });
}

/** What the local service on a data directory announced (read it once `runningEndpoint` says one runs there). */
export async function announcedService(dataDir: string): Promise<AnnouncedService | undefined> {
  try {
    return JSON.parse(await readFile(join(dataDir, serviceFileName), 'utf8')) as AnnouncedService;
  } catch {
    return undefined;
  }
}
