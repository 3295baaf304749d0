import type { Writable } from 'node:stream';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { FunctionClock } from './function-clock';
import { functionWorkerSource } from './function-worker-source';
import { checkEventPayload, lambdaLimits, responseSizeError, streamedResponseSizeError, type InvocationType } from './lambda-limits';
import type { StackFunction } from './template';
import { newAwsId } from '../../lambdas/core/ids';

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
  /** Sent once the handler is loaded (the end of Lambda's init phase), with the heap limits the thread runs under. */
  ready?: { resourceLimits: ResourceLimits };
}

/**
 * The heap Lambda's Node.js runtime gives a function of `memoryMb` (its bootstrap's
 * `--max-semi-space-size` and `--max-old-space-size`): a tenth of the memory for the young
 * generation, in two semi-spaces, and the rest for the old generation. V8 sizes the young
 * generation at three semi-spaces.
 */
export function lambdaHeapLimits(memoryMb: number): Required<Pick<ResourceLimits, 'maxOldGenerationSizeMb' | 'maxYoungGenerationSizeMb'>> {
  const newSpace = Math.floor(memoryMb / 10);
  const semiSpace = Math.floor(newSpace / 2);
  return { maxOldGenerationSizeMb: memoryMb - newSpace, maxYoungGenerationSizeMb: 3 * semiSpace };
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  stream?: Writable;
  /** The bytes streamed so far, against Lambda's streamed response limit. */
  streamedBytes: number;
  timer: NodeJS.Timeout;
}

/**
 * Hosts one function as Lambda does: a cold start at its first invocation (a worker thread with
 * exactly its environment and the heap Lambda's runtime sizes from its memory), its declared
 * time-out enforced from outside once the handler is loaded (Lambda's init phase is not part of
 * the time-out), and a timed-out environment discarded, as Lambda discards a timed-out sandbox:
 * the next invocation starts a new one.
 */
export class FunctionHost {
  private worker: Worker | undefined;
  /** Resolves once the current environment's handler is loaded. */
  private ready: Promise<void> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  invocations = 0;
  /** How many environments were started (cold starts): one more after each discarded one. */
  environments = 0;
  /** The heap limits the last environment's thread reported it runs under. */
  resourceLimits: ResourceLimits | undefined;
  /** How long the last environment's init phase took (thread start to handler loaded), as Lambda's REPORT line's `Init Duration`. */
  initDurationMs: number | undefined;
  /** What the function sent over the network, by `host:port`: HTTP requests counted, TCP connections listed. */
  readonly outbound = { requests: new Map<string, number>(), connections: new Set<string>() };

  constructor(
    readonly fn: StackFunction,
    readonly environment: () => Record<string, string>,
    private readonly options: {
      /** A test's clock for the function's thread; absent: the system clock, as in Lambda. */
      clock?: FunctionClock;
      /** Told each environment's init duration once its handler is loaded. */
      onInit?: (durationMs: number) => void;
      /** The init phase's limit; absent: Lambda's 10 s. */
      initLimitMs?: number;
    } = {},
  ) {}

  /** An environment whose init outlived its limit once and is being retried within an invocation's time-out, unlimited. */
  private retriedInit: Worker | undefined;
  /** Environments this host stopped (a time-out, an init past its limit), as against those that failed on their own. */
  private readonly discarded = new WeakSet<Worker>();

  /** Waits for the current environment's handler to be loaded: true, or false once `limitMs` has passed first. */
  private async loadedWithin(limitMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, limitMs));
    });
    return Promise.race([this.ready!.then(() => true), limit]).finally(() => clearTimeout(timer));
  }

  /**
   * Runs one invocation; `requestId` is the one an asynchronous invocation keeps across its
   * retries. An event over Lambda's payload limit for its invocation type is refused before any
   * environment runs (`RequestEntityTooLargeException`); a buffered response over 6 MB, or a
   * streamed one over 200 MB, is the function's error `Function.ResponseSizeTooLarge`.
   */
  async invoke(event: unknown, stream?: Writable, requestId: string = newAwsId(), invocationType: InvocationType = 'RequestResponse'): Promise<unknown> {
    checkEventPayload(event, invocationType);
    this.invocations++;
    let worker: Worker;
    const timeoutMs = this.fn.timeoutSeconds * 1000;
    const timedOut = () => new FunctionError('Sandbox.Timedout', `Task timed out after ${this.fn.timeoutSeconds.toFixed(2)} seconds`);
    /** When this invocation began waiting on a retried init, which counts against its time-out. */
    let retriedInitSince: number | undefined;
    // Waits for an environment whose handler is loaded; one discarded meanwhile is replaced.
    do {
      worker = this.ensureWorker();
      const retried = worker === this.retriedInit;
      if (retried) retriedInitSince ??= performance.now();
      const limitMs = retried ? timeoutMs - (performance.now() - retriedInitSince!) : (this.options.initLimitMs ?? lambdaLimits.initPhaseMs);
      let loaded: boolean;
      try {
        loaded = await this.loadedWithin(limitMs);
      } catch (error) {
        // An environment discarded during its init by another invocation is replaced; one that failed on its own fails this one.
        if (this.discarded.has(worker)) continue;
        throw error;
      }
      if (loaded || this.worker !== worker) continue;
      if (retried) {
        // The retried init ran out of the invocation's time-out: a time-out like any other.
        this.discard(worker);
        throw timedOut();
      }
      // Lambda's init phase is limited: past it the environment is stopped, and its init is
      // retried at this invocation, within the function's time-out.
      this.discard(worker, new FunctionError('Runtime.InitTimeout', 'the init phase outlived its limit'));
      this.ensureWorker();
      this.retriedInit = this.worker;
    } while (this.worker !== worker);
    const id = this.nextId++;
    const remainingMs = timeoutMs - (retriedInitSince === undefined ? 0 : performance.now() - retriedInitSince);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(timedOut());
        this.discard(worker);
      }, remainingMs);
      this.pending.set(id, { resolve, reject, stream, streamedBytes: 0, timer });
      worker.postMessage({
        id,
        event,
        streamed: stream !== undefined,
        context: {
          functionName: this.fn.name,
          functionVersion: '$LATEST',
          invokedFunctionArn: this.fn.arn,
          memoryLimitInMB: String(this.fn.memoryMb),
          awsRequestId: requestId,
          logGroupName: `/aws/lambda/${this.fn.name}`,
          logStreamName: 'local',
          timeoutMs: remainingMs,
        },
      });
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(functionWorkerSource(), {
      eval: true,
      workerData: { assetDir: this.fn.assetDir, file: this.fn.file, exportName: this.fn.exportName, clock: this.options.clock?.buffer },
      env: this.environment(),
      resourceLimits: lambdaHeapLimits(this.fn.memoryMb),
      stdout: false,
      stderr: false,
    });
    this.environments++;
    const started = performance.now();
    let loaded: () => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      loaded = resolve;
      // An environment that fails before its handler is loaded fails the invocations waiting for it.
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new FunctionError('Runtime.ExitError', `exited with ${code} during init`)));
    });
    this.ready.catch(() => undefined);
    worker.on('message', (message: WorkerMessage) => {
      if (message.outbound) return this.noteOutbound(message.outbound);
      if (message.ready) {
        this.resourceLimits = message.ready.resourceLimits;
        this.initDurationMs = Math.round((performance.now() - started) * 100) / 100;
        this.options.onInit?.(this.initDurationMs);
        // Loaded, a retried init's environment is an environment like any other.
        if (this.retriedInit === worker) this.retriedInit = undefined;
        return loaded();
      }
      const pending = this.pending.get(message.id);
      if (!pending) return;
      if (message.chunk) {
        // Lambda cuts a stream at its limit: the bytes up to it went out, the rest never does.
        pending.streamedBytes += message.chunk.byteLength;
        if (pending.streamedBytes > lambdaLimits.streamedResponseBytes) return this.settle(message.id, pending, { error: streamedResponseSizeError });
        pending.stream?.write(Buffer.from(message.chunk));
        return;
      }
      this.settle(message.id, pending, message);
    });
    worker.on('error', (error) => this.fail(worker, error));
    worker.on('exit', (code) => this.fail(worker, new FunctionError('Runtime.ExitError', `exited with ${code}`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** Ends an invocation with its result or its error; a buffered result over Lambda's limit is the function's error. */
  private settle(id: number, pending: Pending, outcome: Pick<WorkerMessage, 'result' | 'error'>): void {
    this.pending.delete(id);
    clearTimeout(pending.timer);
    const error = outcome.error ?? (pending.stream ? undefined : responseSizeError(outcome.result));
    if (error) {
      pending.stream?.destroy(new FunctionError(error.errorType, error.errorMessage));
      pending.reject(new FunctionError(error.errorType, error.errorMessage));
      return;
    }
    pending.stream?.end();
    pending.resolve(outcome.result);
  }

  private noteOutbound({ kind, target }: { kind: 'request' | 'connection'; target: string }): void {
    if (kind === 'connection') this.outbound.connections.add(target);
    else this.outbound.requests.set(target, (this.outbound.requests.get(target) ?? 0) + 1);
  }

  private fail(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.ready = undefined;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pending.delete(id);
    }
  }

  private discard(worker: Worker, error = new FunctionError('Sandbox.Timedout', 'environment discarded')): void {
    this.discarded.add(worker);
    this.fail(worker, error);
    void worker.terminate();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    if (worker) await worker.terminate();
  }
}
