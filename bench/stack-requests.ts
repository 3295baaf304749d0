/**
 * Requests per second through `npm run start:stack`: the synthesized stack (every function from
 * its bundle in its thread, the API from the template, IAM judged on every AWS call) started in
 * this process, as the contract suites start it, and a fixed mix of API requests sent through
 * its gateway. Each round opens a paid account (the short window counts per key) and sends, at
 * `--connections` at a time: creates (each a fresh Idempotency-Key), reads of each created
 * address, and a listing of each. It reports requests per second per round, their median, and
 * the stack's process CPU time per request (every thread: the functions, dynalite and the
 * gateway all run in this process, as does the bench's own client), and the main thread's share
 * (the gateway, the AWS endpoints' judging and relaying; Linux only). On a shared machine the CPU
 * figures are the ones to compare: the rate moves with everyone else's load.
 *
 *   node --import tsx bench/stack-requests.ts [--rounds 5] [--creates 60] [--connections 4]
 *
 * The stack is read from the cloud assembly the suites share (`cdk.out.stack`, synthesized
 * when the sources changed). Profile it with `node --cpu-prof --import tsx bench/stack-requests.ts`.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openAccount } from '../lambdas/core/accounts';
import { ensureCloudAssembly } from '../local/stack/cloud-assembly';
import { FunctionClock } from '../local/stack/function-clock';
import { startStack } from '../local/stack/start-stack';
import { stackContext, stackDomains } from '../test/support/stack-context';
import { testConfig } from '../test/support/test-config';
import { processCpuMs } from './support/process-cpu';
import { median } from './support/stats';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    creates: { type: 'string', default: '60' },
    connections: { type: 'string', default: '4' },
  },
});
const rounds = Number(values.rounds);
const creates = Number(values.creates);
const connections = Number(values.connections);
// Three requests per created address, and the warm-up's: within the short window of one key (300 a minute).
if (3 * creates + 3 > 300) throw new Error('--creates: at most 99, the short window of one key');

/** Runs `count` tasks, `connections` at a time. */
async function pool(count: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (next < count) await task(next++);
  }));
}

async function main() {
  const cdkOut = await ensureCloudAssembly(stackContext, (line) => process.stderr.write(`${line}\n`));
  const clock = new FunctionClock();
  const stack = await startStack({ ...testConfig, domains: stackDomains }, { cdkOut, clock, gatewayClock: clock });
  const expect = async (response: Response, status: number) => {
    if (response.status !== status) throw new Error(`${response.url} answered ${response.status}: ${await response.text()}`);
    return response.json() as Promise<{ data: { id: string } }>;
  };
  try {
    const perSecond: number[] = [];
    const cpuPerRequest: number[] = [];
    const mainCpuPerRequest: number[] = [];
    for (let round = 0; round <= rounds; round++) {
      const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, stack.services);
      const auth = { Authorization: `Bearer ${apiKey}` };
      const create = () =>
        fetch(`${stack.apiUrl}/v1/emails`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() }, body: '{}' });
      const ids: string[] = [];
      const cpuBefore = process.cpuUsage();
      const mainBefore = processCpuMs(process.pid)?.mainThreadMs;
      const started = performance.now();
      await pool(creates, async () => void ids.push((await expect(await create(), 201)).data.id));
      await pool(ids.length, async (index) => void (await expect(await fetch(`${stack.apiUrl}/v1/emails/${ids[index]}`, { headers: auth }), 200)));
      await pool(ids.length, async (index) => void (await expect(await fetch(`${stack.apiUrl}/v1/emails/${ids[index]}/messages`, { headers: auth }), 200)));
      const seconds = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const mainAfter = processCpuMs(process.pid)?.mainThreadMs;
      // Round 0 warms the functions (their cold starts) and is not counted.
      if (round === 0) continue;
      perSecond.push((3 * creates) / seconds);
      cpuPerRequest.push((cpu.user + cpu.system) / 1000 / (3 * creates));
      if (mainBefore !== undefined && mainAfter !== undefined) mainCpuPerRequest.push((mainAfter - mainBefore) / (3 * creates));
      process.stderr.write(`round ${round}: ${perSecond.at(-1)!.toFixed(1)} requests/s, ${cpuPerRequest.at(-1)!.toFixed(2)} CPU ms/request (main thread ${mainCpuPerRequest.at(-1)?.toFixed(2) ?? '?'})\n`);
    }
    process.stdout.write(
      `${JSON.stringify({ rounds, creates, connections, requestsPerSecond: median(perSecond), cpuMsPerRequest: median(cpuPerRequest), mainThreadCpuMsPerRequest: median(mainCpuPerRequest), perSecond, cpuPerRequest, mainCpuPerRequest })}\n`,
    );
  } finally {
    await stack.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
