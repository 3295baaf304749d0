/**
 * Sends `count` requests, `concurrency` at a time, and tallies their statuses: a client that
 * spends a limit as fast as it can. Keeping a few in flight lets the service's two threads work
 * together instead of waiting on one round trip at a time.
 */
export async function burst(send: () => Promise<Response>, count: number, concurrency = 20): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started += 1;
      const response = await send();
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return statuses;
}
