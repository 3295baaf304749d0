import type { Clock } from '../../lambdas/core/clock';

/** A clock that moves only when a test moves it. */
export class TestClock implements Clock {
  private current: number;

  constructor(start = '2026-11-22T12:00:00.000Z') {
    this.current = Date.parse(start);
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
