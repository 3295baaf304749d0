import { TempmailClient, type ClientOptions } from '../../client/src';
import { contractFetch } from './contract';
import type { TestService } from './local-service';

export interface ClientHarness {
  client: TempmailClient;
  /** Every request the client sent, in order: method, URL and headers. */
  sent: { method: string; url: URL; headers: Record<string, string> }[];
  /** Every wait the client asked for, in milliseconds. */
  sleeps: number[];
}

/**
 * The SDK against the test service: its fetch is `contractFetch` (every answer checked against
 * the OpenAPI document), its clock is the service's test clock, and its sleep moves that clock
 * instead of waiting. `onSleep` runs during a sleep, as the outside world would meanwhile.
 */
export function clientFor(
  service: TestService,
  apiKey: string,
  options: Partial<ClientOptions> & { onSleep?: (index: number) => Promise<void> | void } = {},
): ClientHarness {
  const sent: ClientHarness['sent'] = [];
  const sleeps: number[] = [];
  const { onSleep, ...rest } = options;
  const client = new TempmailClient({
    apiKey,
    baseUrl: service.runtime.apiUrl,
    fetch: async (input, init) => {
      sent.push({ method: init?.method ?? 'GET', url: new URL(String(input)), headers: { ...(init?.headers as Record<string, string>) } });
      return contractFetch(input as string | URL, init);
    },
    now: () => service.clock.now().getTime(),
    sleep: async (ms) => {
      sleeps.push(ms);
      service.clock.advance(ms);
      await onSleep?.(sleeps.length);
    },
    random: () => 0.5,
    ...rest,
  });
  return { client, sent, sleeps };
}
