import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../core/ports/clock';

/** The machine's own time, and waiting for real: the clock every runtime wires outside tests. */
export const systemClock: Clock = { now: () => new Date(), sleep: (ms) => delay(ms) };
