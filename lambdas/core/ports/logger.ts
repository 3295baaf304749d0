/**
 * Structured log lines, one level a method, each written only when the configured level lets it
 * through (`LOG_LEVEL`: debug, info, warn, error, silent). Callers pass identifiers and figures
 * only: never a key, a body, a raw message or any other private content, at any level.
 */
export interface Logger {
  /** Detail worth reading only while looking into a problem: hidden at the default levels. */
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}
