/**
 * The storage floor of an authenticated read: the DynamoDB calls the route makes (key by hash,
 * the conditional allowance write, the email; plus the message query for a listing), sent
 * straight to the service's own dynalite with the same SDK and adapters, at the same
 * concurrency, with no HTTP front, authorizer pipeline or handler. Run as a child process:
 *
 *   node --import tsx bench/storage-floor.ts '{"endpoint":…,"apiKey":…,"emailId":…,"route":"email","connections":16,"durationMs":3000}'
 *
 * Prints one JSON line: requests per second and latency quantiles.
 */
import { localTableNames } from '../lambdas/adapters/dynamodb/table-definitions';
import { createStores } from '../lambdas/composition/services';
import { hashApiKey } from '../lambdas/core/api-keys';
import { shortWindowAt } from '../lambdas/core/short-window';
import type { FloorArgs } from './api-throughput';
import { quantile } from './support/stats';


const unlimited = { perKey: 100_000_000, perAccount: 100_000_000 };
const messageTtlMs = 15 * 60 * 1000;

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]!) as FloorArgs;
  const stores = createStores({ tableNames: localTableNames(), dynamodbEndpoint: args.endpoint, region: 'local' });
  const keyHash = hashApiKey(args.apiKey);
  const oneRead = async () => {
    const key = await stores.keys.findByHash(keyHash);
    if (!key) throw new Error('bench key not found');
    const reservation = await stores.ledger.reserve(key.accountId, { keyId: key.keyId, charge: true, window: shortWindowAt(new Date(), unlimited) });
    if (reservation.outcome !== 'reserved') throw new Error(`reservation ${reservation.outcome}`);
    const email = await stores.emails.get(args.emailId);
    if (!email) throw new Error('bench email not found');
    if (args.route === 'list') {
      const receivedAfter = new Date(Date.now() - messageTtlMs).toISOString();
      await stores.messages.listByEmail(args.emailId, { receivedAfter, limit: 20 });
    }
  };
  const latencies: number[] = [];
  const deadline = performance.now() + args.durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: args.connections }, async () => {
      while (performance.now() < deadline) {
        const begun = performance.now();
        await oneRead();
        latencies.push(performance.now() - begun);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(
    `${JSON.stringify({ requestsPerSecond: latencies.length / seconds, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) })}\n`,
  );
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exit(1);
});
