import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { runScriptForJson } from './support/run-script';

export interface Throughput {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Answers other than the one expected: a load figure counts served requests only. */
  unexpected: number;
}

const projectRoot = join(__dirname, '..');

/** autocannon against one URL for a fixed time; fails when any answer is not `expectStatus`. */
export async function loadUrl(
  url: string,
  options: { connections: number; durationSeconds: number; headers?: Record<string, string>; expectStatus?: number },
): Promise<Throughput> {
  const expected = options.expectStatus ?? 200;
  let unexpected = 0;
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.durationSeconds,
    headers: options.headers,
  }).then((value) => value);
  const counts = result.statusCodeStats as unknown as Record<string, { count: number }>;
  for (const [status, { count }] of Object.entries(counts ?? {})) if (Number(status) !== expected) unexpected += count;
  unexpected += result.errors + result.timeouts;
  return { requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, unexpected };
}

/**
 * `POST /v1/emails` under load: each request with a fresh Idempotency-Key (a new address every
 * time), or every request an exact replay of one create (served from the idempotency record).
 */
export async function loadCreate(
  apiUrl: string,
  apiKey: string,
  mode: 'fresh' | 'replay',
  options: { connections: number; durationSeconds: number },
): Promise<Throughput> {
  const replayKey = `bench-replay-${randomUUID()}`;
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  const first = await fetch(`${apiUrl}/v1/emails`, { method: 'POST', headers: { ...headers, 'Idempotency-Key': replayKey }, body: '{}' });
  if (first.status !== 201) throw new Error(`create answered ${first.status}`);
  let unexpected = 0;
  const result = await autocannon({
    url: `${apiUrl}/v1/emails`,
    connections: options.connections,
    duration: options.durationSeconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => ({
          ...request,
          headers: { ...headers, 'Idempotency-Key': mode === 'replay' ? replayKey : `bench-${randomUUID()}` },
          body: '{}',
        }),
      },
    ],
  });
  const counts = result.statusCodeStats as unknown as Record<string, { count: number }>;
  for (const [status, { count }] of Object.entries(counts ?? {})) if (Number(status) !== 201) unexpected += count;
  unexpected += result.errors + result.timeouts;
  return { requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, unexpected };
}

/** What the storage floor process is told: where, as whom, which read, how hard and how long. */
export interface FloorArgs {
  endpoint: string;
  apiKey: string;
  emailId: string;
  route: 'email' | 'list';
  connections: number;
  durationMs: number;
}

/** The storage floor, measured in a child process of its own (`bench/storage-floor.ts`). */
export async function storageFloor(args: FloorArgs): Promise<Throughput> {
  return { ...((await runScriptForJson('bench/storage-floor.ts', [JSON.stringify(args)])) as Omit<Throughput, 'unexpected'>), unexpected: 0 };
}

/** The bare `node:http` reference in its own process; resolves its URL and a stop function. */
export async function startBareHttp(bodyBytes: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-http.ts', String(bodyBytes)], { cwd: projectRoot });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return {
    url: `http://127.0.0.1:${chunk.toString().trim()}`,
    stop: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
