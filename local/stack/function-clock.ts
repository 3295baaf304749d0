import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../../lambdas/core/ports/clock';

/**
 * The clock of the stack's function threads under a test: an offset each thread adds to the
 * system clock, held in shared memory so that a move reaches running threads at once. A test
 * moves it instead of sleeping (as `npm start`'s tests move their injected clock); the bundled
 * functions read `Date`, as they do in Lambda, and see the moved time.
 */
export class FunctionClock implements Clock {
  readonly buffer = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT);
  private readonly offsetMs = new Float64Array(this.buffer);

  advance(ms: number): void {
    this.offsetMs[0] = (this.offsetMs[0] ?? 0) + ms;
  }

  /** The functions' time, read in the stack's own thread: what SES and EventBridge stamp on the events they send. */
  now(): Date {
    return new Date(Date.now() + (this.offsetMs[0] ?? 0));
  }

  sleep(ms: number): Promise<void> {
    return delay(ms);
  }
}

/** In a function's thread: `Date` (constructed, called, `Date.now()`) reads the system clock plus the shared offset. */
export function installFunctionClock(buffer: SharedArrayBuffer): void {
  const offsetMs = new Float64Array(buffer);
  const SystemDate = Date;
  const now = () => SystemDate.now() + (offsetMs[0] ?? 0);
  globalThis.Date = new Proxy(SystemDate, {
    construct: (target, args, newTarget) => Reflect.construct(target, args.length > 0 ? args : [now()], newTarget) as object,
    apply: () => new SystemDate(now()).toString(),
    get: (target, property, receiver) => (property === 'now' ? now : Reflect.get(target, property, receiver)),
  });
}
