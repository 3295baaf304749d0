import type { Clock } from '../../lambdas/core/ports/clock';
import { newAwsId } from '../../lambdas/core/ids';
import { localNaming } from './template';

export interface ScheduleRunner {
  /** Runs every scheduled function once now, RequestResponse, and resolves with their results. */
  runNow(): Promise<unknown[]>;
  stop(): void;
}

/**
 * EventBridge's scheduled rules of the template: each target function invoked as an Event at its
 * rule's rate, with the event EventBridge sends, its time the services' clock's.
 *
 * The rate runs on real time only where that clock is the system's (`npm run start:stack`). A
 * test's clock moves only when the test moves it, so no real-time timer stands for its schedule:
 * the test runs the schedule itself (`runNow`), and no scheduled run of its own can overlap one
 * the test started and split the work that test counts.
 */
export function startScheduleRunner(options: {
  schedules: { functionId: string; periodSeconds: number }[];
  /** EventBridge's time: the event's `time`. */
  clock: Clock;
  /** Queues an Event invocation of a function, as EventBridge's target does. */
  queue: (functionId: string, event: unknown) => void;
  /** Invokes a function RequestResponse: an operator's run of the schedule now. */
  invoke: (functionId: string, event: unknown) => Promise<unknown>;
  /** Whether the rules fire at their rate on real time: false under a test's clock. */
  onRealTime: boolean;
}): ScheduleRunner {
  const scheduledEvent = () => ({
    version: '0',
    id: newAwsId(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: localNaming.account,
    time: options.clock.now().toISOString(),
    region: localNaming.region,
    resources: [],
    detail: {},
  });
  const timers = (options.onRealTime ? options.schedules : []).map((schedule) => {
    const timer = setInterval(() => options.queue(schedule.functionId, scheduledEvent()), schedule.periodSeconds * 1000);
    timer.unref();
    return timer;
  });
  return {
    runNow: () => Promise.all(options.schedules.map((schedule) => options.invoke(schedule.functionId, scheduledEvent()))),
    stop: () => {
      for (const timer of timers) clearInterval(timer);
    },
  };
}
