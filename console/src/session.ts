import type { ConsoleConfig } from './oidc';

/**
 * Everything secret lives here, in memory only: never in storage, never in a URL. The session ends
 * when the token's lifetime (`exp` − `iat`) has passed since the page received it, on the page's
 * monotonic clock: a computer whose wall clock is wrong neither ends it at once nor keeps it on.
 */
export const session: { token?: string; key?: string; endsAt?: number } = {};

/**
 * The console's configuration, read once at boot (`config.json`), and the router, which boot sets:
 * a screen re-routes through it without importing `main.ts`, which imports every screen.
 */
export const app: { config: ConsoleConfig; route: () => Promise<void> } = {
  config: undefined as unknown as ConsoleConfig,
  route: async () => undefined,
};

/** Addresses by inbox id, from the listings this page has made (never an extra request). */
export const addresses = new Map<string, string>();

/** The inbox a reader opened before giving a key: opened once the key is given. */
export const pending: { wanted?: string } = {};
