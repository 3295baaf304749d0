import type { TestService } from './local-service';

/**
 * The blob keys under the given prefixes, in key order, as the operator lists the store: on the
 * stack the bucket once the mail received so far is processed (its parser runs after SES's 250).
 */
export async function blobKeys(service: TestService, ...prefixes: string[]): Promise<string[]> {
  await service.settled();
  const keys: string[] = [];
  for (const prefix of prefixes) for await (const { key } of service.runtime.services.blobs.list(prefix)) keys.push(key);
  return keys.sort();
}

/**
 * The keys of `now` that `before` lacked. The stack's scheduled sweeper runs at EventBridge's
 * rate on the wall clock and may delete expired blobs between two listings, so a test that asks
 * what a step stored compares what was added, not the whole listing.
 */
export const addedSince = (before: readonly string[], now: readonly string[]): string[] => now.filter((key) => !before.includes(key));
