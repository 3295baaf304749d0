import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { FunctionClock } from './function-clock';
import type { StackFunction } from './template';

export class FunctionError extends Error {
  constructor(
    readonly errorType: string,
    message: string,
  ) {
    super(message);
    this.name = errorType;
  }
}

interface WorkerMessage {
  id: number;
  chunk?: Uint8Array;
  result?: unknown;
  error?: { errorType: string; errorMessage: string };
  outbound?: { kind: 'request' | 'connection'; target: string };
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  stream?: Writable;
  timer: NodeJS.Timeout;
}

/**
 * Hosts one function as Lambda does: a cold start at its first invocation (a worker thread with
 * exactly its environment and its memory as the heap limit), its declared time-out enforced from
 * outside (the environment is discarded, as Lambda discards a timed-out sandbox).
 */
export class FunctionHost {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  invocations = 0;
  /** What the function sent over the network, by `host:port`: HTTP requests counted, TCP connections listed. */
  readonly outbound = { requests: new Map<string, number>(), connections: new Set<string>() };

  constructor(
    readonly fn: StackFunction,
    readonly environment: () => Record<string, string>,
    /** A test's clock for the function's thread; absent: the system clock, as in Lambda. */
    private readonly clock?: FunctionClock,
  ) {}

  invoke(event: unknown, stream?: Writable): Promise<unknown> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    this.invocations++;
    const timeoutMs = this.fn.timeoutSeconds * 1000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new FunctionError('Sandbox.Timedout', `Task timed out after ${this.fn.timeoutSeconds.toFixed(2)} seconds`));
        this.discard();
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, stream, timer });
      worker.postMessage({
        id,
        event,
        streamed: stream !== undefined,
        context: {
          functionName: this.fn.name,
          functionVersion: '$LATEST',
          invokedFunctionArn: this.fn.arn,
          memoryLimitInMB: String(this.fn.memoryMb),
          awsRequestId: crypto.randomUUID(),
          logGroupName: `/aws/lambda/${this.fn.name}`,
          logStreamName: 'local',
          timeoutMs,
        },
      });
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const entry = join(__dirname, 'function-worker.ts');
    const worker = new Worker(`require('tsx/cjs/api').register(); require(${JSON.stringify(entry)});`, {
      eval: true,
      workerData: { assetDir: this.fn.assetDir, file: this.fn.file, exportName: this.fn.exportName, clock: this.clock?.buffer },
      env: this.environment(),
      resourceLimits: { maxOldGenerationSizeMb: this.fn.memoryMb },
      stdout: false,
      stderr: false,
    });
    worker.on('message', (message: WorkerMessage) => {
      if (message.outbound) return this.noteOutbound(message.outbound);
      const pending = this.pending.get(message.id);
      if (!pending) return;
      if (message.chunk) {
        pending.stream?.write(Buffer.from(message.chunk));
        return;
      }
      this.pending.delete(message.id);
      clearTimeout(pending.timer);
      if (message.error) pending.reject(new FunctionError(message.error.errorType, message.error.errorMessage));
      else {
        pending.stream?.end();
        pending.resolve(message.result);
      }
    });
    worker.on('error', (error) => this.fail(worker, error));
    worker.on('exit', (code) => this.fail(worker, new FunctionError('Runtime.ExitError', `exited with ${code}`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private noteOutbound({ kind, target }: { kind: 'request' | 'connection'; target: string }): void {
    if (kind === 'connection') this.outbound.connections.add(target);
    else this.outbound.requests.set(target, (this.outbound.requests.get(target) ?? 0) + 1);
  }

  private fail(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pending.delete(id);
    }
  }

  private discard(): void {
    const worker = this.worker;
    if (!worker) return;
    this.fail(worker, new FunctionError('Sandbox.Timedout', 'environment discarded'));
    void worker.terminate();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
