/** Calls of the console API (identity token) and of `/v1` (an API key held in memory). */
export interface ApiError {
  status: number;
  code: string;
  message: string;
}

export class ApiFailure extends Error {
  constructor(readonly failure: ApiError) {
    super(failure.message);
  }
}

/** The remaining allowance the last `/v1` answer reported (its `RateLimit-Remaining`). */
export let lastRemaining: string | null = null;

async function call(path: string, token: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(path, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
    credentials: 'omit',
    cache: 'no-store',
  });
  if (path.startsWith('/v1/')) lastRemaining = response.headers.get('RateLimit-Remaining') ?? lastRemaining;
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    throw new ApiFailure({ status: response.status, code: body.error?.code ?? 'error', message: body.error?.message ?? response.statusText });
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
