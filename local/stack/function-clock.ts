import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../../lambdas/core/ports/clock';

/**
 * The clock of the stack's function threads under a test, held in shared memory so that a move
 * reaches running threads at once: an offset each thread adds to the system clock, or a time it
 * stands still at once the test has set one. A test moves it instead of sleeping (as `npm
 * start`'s tests move their injected clock); the bundled functions read `Date`, as they do in
 * Lambda, and see the moved time.
 */
export class FunctionClock implements Clock {
  /** [the offset to the system clock in ms, the time set in ms since the epoch (NaN: none set)]. */
  readonly buffer = new SharedArrayBuffer(2 * Float64Array.BYTES_PER_ELEMENT);
  private readonly state = new Float64Array(this.buffer);

  constructor() {
    this.state[1] = Number.NaN;
  }

  /** Holds the functions' time at `at` until the next `set` or `advance`: a test's moments are then exactly the ones it names. */
  set(at: Date): void {
    this.state[1] = at.getTime();
  }

  advance(ms: number): void {
    if (Number.isNaN(this.state[1])) this.state[0] = (this.state[0] ?? 0) + ms;
    else this.state[1] = this.state[1]! + ms;
  }

  /** The functions' time, read in the stack's own thread: what SES and EventBridge stamp on the events they send. */
  now(): Date {
    return new Date(functionTime(this.state));
  }

  sleep(ms: number): Promise<void> {
    return delay(ms);
  }
}

function functionTime(state: Float64Array, systemNow: () => number = Date.now): number {
  const set = state[1]!;
  return Number.isNaN(set) ? systemNow() + (state[0] ?? 0) : set;
}

/** In a function's thread: `Date` (constructed, called, `Date.now()`) reads the shared clock. */
export function installFunctionClock(buffer: SharedArrayBuffer): void {
  const state = new Float64Array(buffer);
  const SystemDate = Date;
  const now = () => functionTime(state, SystemDate.now);
  globalThis.Date = new Proxy(SystemDate, {
    construct: (target, args, newTarget) => Reflect.construct(target, args.length > 0 ? args : [now()], newTarget) as object,
    apply: () => new SystemDate(now()).toString(),
    get: (target, property, receiver) => (property === 'now' ? now : Reflect.get(target, property, receiver)),
  });
}
