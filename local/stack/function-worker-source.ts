import { buildSync } from 'esbuild';
import { join } from 'node:path';

let source: string | undefined;

/**
 * The source of a function's thread (function-worker.ts and what it imports, bundled into one
 * CommonJS script), built once per process. Every cold start runs it: loading TypeScript through
 * tsx's loader in each new thread cost about 75 ms of processor time per environment, more than
 * the thread's own start, and a contract suite cold-starts every function it calls. The script is
 * the same code: the bundle only joins the files and removes their types.
 */
export function functionWorkerSource(): string {
  source ??= buildSync({
    entryPoints: [join(__dirname, 'function-worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node}`,
    write: false,
    logLevel: 'silent',
  }).outputFiles[0]!.text;
  return source;
}
