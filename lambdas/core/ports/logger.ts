/**
 * Structured log lines. Callers pass identifiers and figures only: never a key, a body, a raw
 * message or any other private content.
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}
