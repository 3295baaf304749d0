import { startScheduleRunner } from '../../../../local/stack/schedule-runner';
import { FunctionClock } from '../../../../local/stack/function-clock';

/**
 * EventBridge's schedule as `start:stack` runs it: at the rule's rate on real time with the
 * system's clock, and only when the test runs it under a test's clock, so that no scheduled run
 * overlaps (and splits the work of) the sweep a test starts and counts.
 */
describe("start:stack's EventBridge schedule", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function runner(onRealTime: boolean) {
    const clock = new FunctionClock();
    clock.set(new Date('2030-01-01T00:00:00.000Z'));
    const queued: { functionId: string; event: { 'detail-type': string; time: string } }[] = [];
    const invoked: string[] = [];
    const schedule = startScheduleRunner({
      schedules: [{ functionId: 'Sweeper', periodSeconds: 60 }],
      clock,
      queue: (functionId, event) => queued.push({ functionId, event: event as (typeof queued)[number]['event'] }),
      invoke: async (functionId) => {
        invoked.push(functionId);
        return { ran: functionId };
      },
      onRealTime,
    });
    return { clock, queued, invoked, schedule };
  }

  it('queues each target as an Event at its rate on real time, with the event EventBridge sends', () => {
    const { queued, schedule } = runner(true);
    jest.advanceTimersByTime(59_999);
    expect(queued).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(queued).toEqual([{ functionId: 'Sweeper', event: expect.objectContaining({ 'detail-type': 'Scheduled Event', time: '2030-01-01T00:00:00.000Z' }) }]);
    jest.advanceTimersByTime(120_000);
    expect(queued).toHaveLength(3);
    schedule.stop();
    jest.advanceTimersByTime(600_000);
    expect(queued).toHaveLength(3);
  });

  it("under a test's clock, runs only when the test runs it, however much real time passes", async () => {
    const { clock, queued, invoked, schedule } = runner(false);
    jest.advanceTimersByTime(3_600_000);
    expect(queued).toEqual([]);
    clock.advance(15 * 60 * 1000);
    await expect(schedule.runNow()).resolves.toEqual([{ ran: 'Sweeper' }]);
    expect(invoked).toEqual(['Sweeper']);
    expect(queued).toEqual([]);
    schedule.stop();
  });
});
