import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../../lambdas/core/ports/clock';

/**
 * A clock that moves only when a test moves it. Its `sleep` leaves the time where it is and
 * yields for real, as the system's does: a service that polls (a create waiting on a concurrent
 * one with its key) then waits on the other request as in production, and requests waiting side
 * by side do not move each other's time. A test that must not wait replaces `sleep`.
 */
/** Where a test's clock starts: a fixed moment, so that a suite's times are the same on every run and runtime. */
export const testClockStart = '2026-11-22T12:00:00.000Z';

export class TestClock implements Clock {
  private current: number;

  constructor(start = testClockStart) {
    this.current = Date.parse(start);
  }

  now(): Date {
    return new Date(this.current);
  }

  sleep(ms: number): Promise<void> {
    return delay(ms);
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
