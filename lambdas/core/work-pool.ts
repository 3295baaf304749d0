/**
 * Runs tasks with at most `size` of them in flight: `add` starts a task once a place is free
 * (waiting for one otherwise), `settled` waits for every task started. A task that fails is
 * handed to `onFailure` and never stops the others; the caller decides what a failure means.
 *
 * @example
 * const pool = workPool(8, (error) => failures.push(error));
 * for (const batch of batches) await pool.add(() => deleteBatch(batch));
 * await pool.settled();
 */
export function workPool(size: number, onFailure: (error: unknown) => void) {
  const running = new Set<Promise<void>>();
  return {
    async add(task: () => Promise<void>): Promise<void> {
      while (running.size >= size) await Promise.race(running);
      const promise: Promise<void> = task()
        .catch(onFailure)
        .finally(() => running.delete(promise));
      running.add(promise);
    },
    async settled(): Promise<void> {
      await Promise.all(running);
    },
  };
}
