import type { components } from '../../client/src/generated/openapi';

/** Calls of the console API (identity token) and of `/v1` (an API key held in memory). */
export interface ApiError {
  status: number;
  code: string;
  message: string;
  /** The first `details[].reason`: for a 429, which limit was met (`allowance_exhausted`…). */
  reason?: string;
}

/** The contract's error shape, as far as an answer from anywhere can be trusted to follow it. */
type ErrorBody = { error?: Partial<Pick<components['schemas']['Error'], 'code' | 'message' | 'details'>> };

export class ApiFailure extends Error {
  constructor(readonly failure: ApiError) {
    super(failure.message);
  }
}

/** The remaining allowance the last `/v1` answer reported (its `RateLimit-Remaining`). */
export let lastRemaining: string | null = null;

/** A 429 of a used-up allowance, told by its reason (never by its message). */
export function isAllowanceExhausted(error: unknown): boolean {
  return error instanceof ApiFailure && error.failure.status === 429 && error.failure.reason === 'allowance_exhausted';
}

async function call(path: string, token: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(path, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
    credentials: 'omit',
    cache: 'no-store',
  });
  if (path.startsWith('/v1/')) lastRemaining = response.headers.get('RateLimit-Remaining') ?? lastRemaining;
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as ErrorBody;
    const reason = Array.isArray(body.error?.details) ? body.error.details[0]?.reason : undefined;
    throw new ApiFailure({
      status: response.status,
      code: body.error?.code ?? 'error',
      message: body.error?.message ?? response.statusText,
      ...(typeof reason === 'string' ? { reason } : {}),
    });
  }
  return response;
}

export async function json<T>(path: string, token: string, init: RequestInit = {}): Promise<T> {
  return (await (await call(path, token, init)).json()) as T;
}

/** A body as text (the raw source of a message), for showing as text, never as HTML. */
export async function text(path: string, token: string): Promise<string> {
  return (await call(path, token)).text();
}

/** Downloads a file body through `/v1` and offers it to save; it is never rendered. */
export async function download(path: string, key: string, filename: string): Promise<void> {
  const blob = await (await call(path, key)).blob();
  const url = URL.createObjectURL(new Blob([blob], { type: 'application/octet-stream' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
