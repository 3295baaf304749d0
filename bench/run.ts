/**
 * `npm run bench`: every speed and memory measurement of the project in one run, each beside a
 * reference measured in the same run, rounds interleaved (ours, reference, ours, …) so that
 * background load touches both alike. Prints one table and writes `bench/results.json`.
 *
 *   npm run bench                                  # BENCH_ROUNDS (default 3) rounds of everything
 *   npm run bench -- --only ingest,stages          # only these parts (ingest, api, create, calls, stages, bundles, memory)
 *   npm run bench -- --only ingest --corpus sign-up,newsletter # only the ingest cases whose corpus name contains one of these
 *
 * A partial run prints its tables and writes `bench/results.partial.json`, never the full run's file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { loadCreate, loadUrl, startBareHttp, storageFloor, type Throughput } from './api-throughput';
import { measureCallBudget } from './call-budget';
import { measureIngestRound, type IngestRound } from './ingest-rate';
import { ingestStages, measureIngestStages } from './ingest-stages';
import { largeAttachmentCorpus, newsletterCorpus, signupCorpus, type Corpus } from './support/mail-corpus';
import { runScriptForJson } from './support/run-script';
import { formatSpread, spread } from './support/stats';
import { startMailDev, startOurService, type IngestTarget, type OurService } from './support/targets';
import { createTransport } from 'nodemailer';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3) || 3;
const loadSeconds = Number(process.env.BENCH_LOAD_SECONDS ?? 3) || 3;

const parts = ['ingest', 'api', 'create', 'calls', 'stages', 'bundles', 'memory'] as const;
type Part = (typeof parts)[number];

/** The parts this run measures (`--only a,b`) and the ingest corpora it keeps (`--corpus text`): everything by default. */
function selection(args: string[]): { only: ReadonlySet<Part>; partial: boolean; corpus?: string } {
  const value = (flag: string) => {
    const index = args.indexOf(flag);
    return index >= 0 ? args[index + 1] : undefined;
  };
  const only = value('--only')?.split(',').map((part) => part.trim());
  const unknown = only?.filter((part) => !(parts as readonly string[]).includes(part)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown bench part ${unknown.join(', ')}: choose among ${parts.join(', ')}`);
  const corpus = value('--corpus');
  return { only: new Set((only ?? parts) as Part[]), partial: only !== undefined || corpus !== undefined, ...(corpus ? { corpus } : {}) };
}
const selected = selection(process.argv.slice(2));

const ingestCases: { corpus: () => Corpus; connections: number }[] = [
  { corpus: () => signupCorpus(300), connections: 8 },
  { corpus: () => signupCorpus(100), connections: 1 },
  { corpus: () => newsletterCorpus(100), connections: 8 },
  { corpus: () => newsletterCorpus(50), connections: 1 },
  { corpus: () => largeAttachmentCorpus(16), connections: 8 },
  { corpus: () => largeAttachmentCorpus(8), connections: 1 },
];

type IngestSummary = ReturnType<typeof summarizeIngest>;

interface IngestResult {
  corpus: string;
  mails: number;
  connections: number;
  ours: IngestSummary;
  maildev: IngestSummary;
  ratio: number;
}

function summarizeIngest(samples: IngestRound[]) {
  const cpu = samples.flatMap((s) => (s.cpuMsPerMail === undefined ? [] : [s.cpuMsPerMail]));
  const mainThread = samples.flatMap((s) => (s.mainThreadCpuMsPerMail === undefined ? [] : [s.mainThreadCpuMsPerMail]));
  return {
    messagesPerSecond: spread(samples.map((s) => s.messagesPerSecond)),
    acceptedPerSecond: spread(samples.map((s) => s.acceptedPerSecond)),
    p50ListedMs: spread(samples.map((s) => s.p50ListedMs)),
    p99ListedMs: spread(samples.map((s) => s.p99ListedMs)),
    ...(cpu.length > 0 ? { cpuMsPerMail: spread(cpu), mainThreadCpuMsPerMail: spread(mainThread) } : {}),
  };
}

/** CPU ms per mail with the main thread's share, `—` where `/proc` is not there to read. */
const cpuCell = (summary: IngestSummary) =>
  summary.cpuMsPerMail && summary.mainThreadCpuMsPerMail
    ? `${summary.cpuMsPerMail.median.toFixed(1)} (${summary.mainThreadCpuMsPerMail.median.toFixed(1)})`
    : '—';

async function benchIngest(ours: IngestTarget, maildev: IngestTarget): Promise<IngestResult[]> {
  const results: IngestResult[] = [];
  for (const { corpus: makeCorpus, connections } of ingestCases) {
    const corpus = makeCorpus();
    if (selected.corpus && !selected.corpus.split(',').some((name) => corpus.name.includes(name))) continue;
    const samples: Record<'ours' | 'maildev', IngestRound[]> = { ours: [], maildev: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['ours', 'maildev'] as const) : (['maildev', 'ours'] as const);
      for (const which of order) samples[which].push(await measureIngestRound(which === 'ours' ? ours : maildev, corpus, connections));
    }
    const oursSummary = summarizeIngest(samples.ours);
    const maildevSummary = summarizeIngest(samples.maildev);
    results.push({
      corpus: corpus.name,
      mails: corpus.count,
      connections,
      ours: oursSummary,
      maildev: maildevSummary,
      ratio: oursSummary.messagesPerSecond.median / maildevSummary.messagesPerSecond.median,
    });
    process.stderr.write(`ingest ${corpus.name} x${corpus.count} at ${connections}: ${oursSummary.messagesPerSecond.median.toFixed(1)} vs ${maildevSummary.messagesPerSecond.median.toFixed(1)} msg/s\n`);
  }
  return results;
}

interface LoadResult {
  name: string;
  connections: number;
  samples: Record<string, Throughput[]>;
}

const summarizeLoad = (samples: Throughput[]) => ({
  requestsPerSecond: spread(samples.map((s) => s.requestsPerSecond)),
  p50: spread(samples.map((s) => s.p50)),
  p99: spread(samples.map((s) => s.p99)),
  unexpected: samples.reduce((sum, s) => sum + s.unexpected, 0),
});

async function fillInbox(ours: OurService, count: number): Promise<{ id: string; address: string }> {
  const email = await ours.createEmail();
  const transport = createTransport({ host: '127.0.0.1', port: ours.smtpPort, secure: false, ignoreTLS: true });
  for (let index = 0; index < count; index++) {
    const mail = signupCorpus(count).mail(index, 'api');
    await transport.sendMail({ from: 'bench@example.org', to: email.address, ...mail });
  }
  transport.close();
  return email;
}

async function benchApi(ours: OurService) {
  const email = await fillInbox(ours, 20);
  const endpoint = readFileSync(join(ours.dataDir, 'dynamodb-endpoint'), 'utf8').trim();
  const emailBody = await (await ours.request(`/v1/emails/${email.id}`)).text();
  const bare = await startBareHttp(Buffer.byteLength(emailBody));
  const auth = { Authorization: `Bearer ${ours.apiKey}` };
  const results: LoadResult[] = [];
  try {
    for (const route of ['email', 'list'] as const) {
      const path = route === 'email' ? `/v1/emails/${email.id}` : `/v1/emails/${email.id}/messages`;
      for (const connections of [1, 16]) {
        const samples: Record<string, Throughput[]> = { ours: [], floor: [], bare: [] };
        for (let round = 0; round < rounds; round++) {
          const steps = {
            ours: () => loadUrl(`${ours.apiUrl}${path}`, { connections, durationSeconds: loadSeconds, headers: auth }),
            floor: () =>
              storageFloor({ endpoint, apiKey: ours.apiKey, emailId: email.id, route, connections, durationMs: loadSeconds * 1000 }),
            bare: () => loadUrl(bare.url, { connections, durationSeconds: loadSeconds }),
          };
          const order = round % 2 === 0 ? (['ours', 'floor', 'bare'] as const) : (['floor', 'bare', 'ours'] as const);
          for (const which of order) samples[which]!.push(await steps[which]());
        }
        results.push({ name: route === 'email' ? 'GET /v1/emails/{id}' : 'GET /v1/emails/{id}/messages (20)', connections, samples });
        process.stderr.write(`api ${route} at ${connections}: done\n`);
      }
    }
  } finally {
    await bare.stop();
  }
  return results.map((result) => {
    const ours = summarizeLoad(result.samples.ours!);
    const floor = summarizeLoad(result.samples.floor!);
    const bareSummary = summarizeLoad(result.samples.bare!);
    return {
      name: result.name,
      connections: result.connections,
      ours,
      floor,
      bare: bareSummary,
      ratioToFloor: ours.requestsPerSecond.median / floor.requestsPerSecond.median,
      ratioToBare: ours.requestsPerSecond.median / bareSummary.requestsPerSecond.median,
    };
  });
}

async function benchCreate(ours: OurService) {
  const results = [];
  for (const mode of ['fresh', 'replay'] as const) {
    const samples: Throughput[] = [];
    for (let round = 0; round < rounds; round++) {
      samples.push(await loadCreate(ours.apiUrl, ours.apiKey, mode, { connections: 8, durationSeconds: loadSeconds }));
    }
    results.push({ mode, connections: 8, ...summarizeLoad(samples) });
  }
  return results;
}

function printTable(results: any): void {
  const lines: string[] = [];
  lines.push(
    `tempmail bench: ${results.machine.cpus} cores, Node ${results.machine.node}, ${rounds} interleaved rounds; median (min–max); ` +
      `load average ${results.machine.loadAverageAtStart.toFixed(1)} at the start, ${results.machine.loadAverageAtEnd.toFixed(1)} at the end`,
  );
  if (results.ingest) {
    lines.push('');
    lines.push(
      '| ingest | conns | ours msg/s listed | MailDev msg/s listed | ratio | ours 250/s | MailDev 250/s | ours p99 listed ms | MailDev p99 listed ms | ours CPU ms/mail (main thread) | MailDev CPU ms/mail (main thread) |',
    );
    lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of results.ingest as IngestResult[]) {
      lines.push(
        `| ${row.corpus} ×${row.mails} | ${row.connections} | ${formatSpread(row.ours.messagesPerSecond)} | ${formatSpread(row.maildev.messagesPerSecond)} | ${row.ratio.toFixed(2)} | ${formatSpread(row.ours.acceptedPerSecond)} | ${formatSpread(row.maildev.acceptedPerSecond)} | ${formatSpread(row.ours.p99ListedMs, 0)} | ${formatSpread(row.maildev.p99ListedMs, 0)} | ${cpuCell(row.ours)} | ${cpuCell(row.maildev)} |`,
      );
    }
  }
  if (results.api) {
    lines.push('');
    lines.push('| API read | conns | ours req/s | floor req/s | ratio to floor | bare http req/s | ours p50 / p99 ms | floor p99 ms | DynamoDB calls |');
    lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const row of results.api) {
      const calls = results.callBudget?.[row.name.startsWith('GET /v1/emails/{id}/messages') ? 'listMessages' : 'getEmail'] ?? {};
      lines.push(
        `| ${row.name} | ${row.connections} | ${formatSpread(row.ours.requestsPerSecond, 0)} | ${formatSpread(row.floor.requestsPerSecond, 0)} | ${row.ratioToFloor.toFixed(2)} | ${formatSpread(row.bare.requestsPerSecond, 0)} | ${row.ours.p50.median.toFixed(1)} / ${row.ours.p99.median.toFixed(1)} | ${row.floor.p99.median.toFixed(1)} | ${Object.entries(calls).map(([name, count]) => `${name} ${count}`).join(', ')} |`,
      );
    }
  }
  if (results.create) {
    lines.push('');
    lines.push('| create | conns | req/s | p50 ms | p99 ms |');
    lines.push('|---|---:|---:|---:|---:|');
    for (const row of results.create) {
      lines.push(`| POST /v1/emails, ${row.mode === 'fresh' ? 'fresh key' : 'exact replay'} | ${row.connections} | ${formatSpread(row.requestsPerSecond, 0)} | ${row.p50.median.toFixed(1)} | ${row.p99.median.toFixed(1)} |`);
    }
  }
  if (results.callBudget) {
    lines.push(`DynamoDB calls per received mail (one address, SMTP): ${Object.entries(results.callBudget.receiveMail).map(([name, count]) => `${name} ${count}`).join(', ')} (budget 4)`);
  }
  if (results.stages) {
    lines.push('');
    lines.push('| ingest stage, per mail at one connection | sign-up wall ms | sign-up CPU ms | newsletter wall ms | newsletter CPU ms |');
    lines.push('|---|---:|---:|---:|---:|');
    for (const stage of ingestStages) {
      const [signup, newsletter] = [results.stages.signup[stage], results.stages.newsletter[stage]];
      const cpu = (figures: { cpuMs: number; mainThreadCpuMs?: number }) =>
        `${figures.cpuMs.toFixed(2)}${figures.mainThreadCpuMs === undefined ? '' : ` (main thread ${figures.mainThreadCpuMs.toFixed(2)})`}`;
      lines.push(`| ${stage} | ${signup.wallMs.toFixed(2)} | ${cpu(signup)} | ${newsletter.wallMs.toFixed(2)} | ${cpu(newsletter)} |`);
    }
  }
  if (results.bundles) {
    lines.push('');
    const api = results.bundles.rows.filter((row: any) => row.kind === 'api');
    const functions = results.bundles.rows.filter((row: any) => row.kind === 'api' || row.kind === 'inbound');
    const largest = Math.max(...api.map((row: any) => row.bytes)) / 1000;
    const slowest = functions.reduce((a: any, b: any) => (b.importMs > a.importMs ? b : a));
    lines.push(
      `API bundles: largest ${largest.toFixed(1)} KB (target < 800); slowest cold import of any function ${slowest.name}, ` +
        `${slowest.importMs.toFixed(1)} ms as deployed, ${slowest.quietEstimateMs.toFixed(1)} ms estimated quiet (target < 100), ` +
        `of which its AWS SDK clients alone ${slowest.sdkFloorEstimateMs.toFixed(1)} ms`,
    );
  }
  if (results.ingestMemory) {
    lines.push(`Parser peak RSS on a 25 MB attachment: ${results.ingestMemory.streamMb.toFixed(1)} MB (buffering reference ${results.ingestMemory.bufferMb.toFixed(1)} MB; target < 300)`);
  }
  console.log(lines.join('\n'));
}

async function main(): Promise<void> {
  const started = Date.now();
  const results: Record<string, unknown> = {
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadAverageAtStart: loadavg()[0] },
    rounds,
    loadSeconds,
    startedAt: new Date(started).toISOString(),
  };
  const { only } = selected;
  if (only.has('ingest') || only.has('api') || only.has('create')) {
    const ours = await startOurService();
    try {
      if (only.has('ingest')) {
        const maildev = await startMailDev();
        try {
          results.ingest = await benchIngest(ours, maildev);
        } finally {
          await maildev.stop();
        }
      }
      if (only.has('api')) results.api = await benchApi(ours);
      if (only.has('create')) results.create = await benchCreate(ours);
    } finally {
      await ours.stop();
    }
  }
  if (only.has('calls') || only.has('api')) results.callBudget = await measureCallBudget();
  if (only.has('stages')) {
    results.stages = { signup: await measureIngestStages(signupCorpus(100)), newsletter: await measureIngestStages(newsletterCorpus(50)) };
  }
  if (only.has('bundles')) results.bundles = await runScriptForJson('bench/bundle-report.ts', ['5', '--json']);
  if (only.has('memory')) results.ingestMemory = await runScriptForJson('bench/ingest-peak-rss.ts', ['3', '--json']);
  results.seconds = (Date.now() - started) / 1000;
  (results.machine as Record<string, unknown>).loadAverageAtEnd = loadavg()[0];
  const file = selected.partial ? 'results.partial.json' : 'results.json';
  writeFileSync(join(__dirname, file), `${JSON.stringify(results, null, 2)}\n`);
  printTable(results);
  console.log(`\n${(results.seconds as number).toFixed(0)} s; figures in bench/${file}`);
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
