import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createTransport } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { openAccount } from '../lambdas/core/accounts';
import { parseMail } from '../lambdas/mail/parse-mail';
import { idPrefixFor, sanitizeEmailHtml } from '../lambdas/mail/sanitize-email-html';
import { startLocal } from '../local/start-local';
import { newsletterCorpus, signupCorpus, type Corpus } from './support/mail-corpus';
import { processCpuMs } from './support/process-cpu';
import { drainingBlobs } from './support/draining-blobs';

export const ingestStages = ['SMTP and the rest', 'raw write', 'recipient checks', 'parse', 'sanitize', 'blob writes', 'message put', 'total'] as const;
export type IngestStage = (typeof ingestStages)[number];

export interface StageFigures {
  /** Wall milliseconds per mail. */
  wallMs: number;
  /** Process CPU milliseconds per mail (every thread: the storage thread's work counts where it is caused). */
  cpuMs: number;
  /** Of the total, the main thread's CPU milliseconds per mail (Linux only): the SMTP intake, the HTTP front and whatever runs beside them. */
  mainThreadCpuMs?: number;
}

/**
 * One mail's time, stage by stage, at one SMTP connection (so that every interval belongs to one
 * mail): the service runs in this process as `npm start` runs it (data directory on disk, storage
 * in its own thread), and its ports are wrapped to time the raw write, the recipient checks (the
 * reads at RCPT TO and at the end of DATA), the other blob writes and the message put. Parsing and
 * sanitizing run inside the ingest, so they are timed on the same mails by calling the same
 * functions directly; "SMTP and the rest" is what the sender waits for beyond the timed stages.
 * "total" is the whole process per mail (the sender's own SMTP client included), the figure that
 * stays comparable however the stages overlap: the parser runs while the raw copy is written, so
 * the raw write's interval holds the parse and the attachment writes too, and a stage timed inside
 * another's interval is counted in the outer one only.
 */
export async function measureIngestStages(corpus: Corpus): Promise<Record<IngestStage, StageFigures>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tempmail-stages-'));
  const runtime = await startLocal({
    host: '127.0.0.1', port: 0, smtpPort: 0, dataDir, domains: ['tempmail.localhost'], env: 'local',
    messageTtlSeconds: 900, emailTtlSeconds: 2_592_000, cursorSecret: 'bench-cursor-secret-0123456789abcdef', logLevel: 'silent',
  });
  const totals = Object.fromEntries(ingestStages.map((stage) => [stage, { wallMs: 0, cpuMs: 0 }])) as Record<IngestStage, StageFigures>;
  let open = 0;
  const timed = <A extends unknown[], R>(call: (...args: A) => Promise<R>, stage: (first: NoInfer<A>[0]) => IngestStage) =>
    async (...args: A): Promise<R> => {
      // Inside another stage's interval (an attachment written while the raw copy is): counted there.
      if (open > 0) return call(...args);
      open += 1;
      const wall = performance.now();
      const cpu = process.cpuUsage();
      try {
        return await call(...args);
      } finally {
        open -= 1;
        const used = process.cpuUsage(cpu);
        totals[stage(args[0])].wallMs += performance.now() - wall;
        totals[stage(args[0])].cpuMs += (used.user + used.system) / 1000;
      }
    };
  try {
    const services = runtime.services;
    const blobPut = services.blobs.put.bind(services.blobs);
    services.blobs.put = timed(blobPut, (key) => (key.endsWith('/raw') ? 'raw write' : 'blob writes'));
    services.deliveryReads.read = timed(services.deliveryReads.read.bind(services.deliveryReads), () => 'recipient checks');
    services.emails.get = timed(services.emails.get.bind(services.emails), () => 'recipient checks');
    services.domains.get = timed(services.domains.get.bind(services.domains), () => 'recipient checks');
    services.registry.lookup = timed(services.registry.lookup.bind(services.registry), () => 'recipient checks');
    services.messages.get = timed(services.messages.get.bind(services.messages), () => 'recipient checks');
    services.messages.put = timed(services.messages.put.bind(services.messages), () => 'message put');

    const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, services);
    const created = await fetch(`${runtime.apiUrl}/v1/emails`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'bench-stages-0001' },
      body: '{}',
    });
    const recipient = ((await created.json()) as { data: { address: string } }).data.address;
    const raws = await Promise.all(
      Array.from({ length: corpus.count }, (_, index) => new MailComposer({ from: 'bench@example.org', to: recipient, ...corpus.mail(index, 'stages') }).compile().build()),
    );
    const transport = createTransport({ host: '127.0.0.1', port: runtime.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1 });
    let senderWallMs = 0;
    let senderCpuMs = 0;
    const mainThreadBefore = processCpuMs(process.pid)?.mainThreadMs;
    try {
      for (const raw of raws) {
        const wall = performance.now();
        const cpu = process.cpuUsage();
        await transport.sendMail({ envelope: { from: 'bench@example.org', to: [recipient] }, raw });
        const used = process.cpuUsage(cpu);
        senderWallMs += performance.now() - wall;
        senderCpuMs += (used.user + used.system) / 1000;
      }
    } finally {
      transport.close();
    }
    const mainThreadAfter = processCpuMs(process.pid)?.mainThreadMs;

    // Parse and sanitize, on the same mails, with a blob store that only drains what it is given.
    for (const [index, raw] of raws.entries()) {
      let wall = performance.now();
      let cpu = process.cpuUsage();
      const parsed = await parseMail(Readable.from([raw]), { blobs: drainingBlobs, keyPrefix: `mail/stages-${index}` });
      let used = process.cpuUsage(cpu);
      totals.parse.wallMs += performance.now() - wall;
      totals.parse.cpuMs += (used.user + used.system) / 1000;
      wall = performance.now();
      cpu = process.cpuUsage();
      sanitizeEmailHtml(parsed.html, { idPrefix: idPrefixFor(`stages-${index}`) });
      used = process.cpuUsage(cpu);
      totals.sanitize.wallMs += performance.now() - wall;
      totals.sanitize.cpuMs += (used.user + used.system) / 1000;
    }
    totals.total = {
      wallMs: senderWallMs,
      cpuMs: senderCpuMs,
      ...(mainThreadBefore === undefined || mainThreadAfter === undefined ? {} : { mainThreadCpuMs: mainThreadAfter - mainThreadBefore }),
    };
    const timedStages = ingestStages.filter((stage) => stage !== 'SMTP and the rest' && stage !== 'total');
    totals['SMTP and the rest'] = {
      wallMs: Math.max(0, senderWallMs - timedStages.reduce((sum, stage) => sum + totals[stage].wallMs, 0)),
      cpuMs: Math.max(0, senderCpuMs - timedStages.reduce((sum, stage) => sum + totals[stage].cpuMs, 0)),
    };
    return Object.fromEntries(
      ingestStages.map((stage) => {
        const { wallMs, cpuMs, mainThreadCpuMs: mainMs } = totals[stage];
        return [stage, { wallMs: wallMs / raws.length, cpuMs: cpuMs / raws.length, ...(mainMs === undefined ? {} : { mainThreadCpuMs: mainMs / raws.length }) }];
      }),
    ) as Record<IngestStage, StageFigures>;
  } finally {
    await runtime.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void (async () => {
    for (const corpus of [signupCorpus(100), newsletterCorpus(50)]) {
      const stages = await measureIngestStages(corpus);
      console.log(`\n${corpus.name} ×${corpus.count}, one connection, per mail`);
      console.log('| stage | wall ms | CPU ms |\n|---|---:|---:|');
      for (const [stage, { wallMs, cpuMs, mainThreadCpuMs: mainMs }] of Object.entries(stages)) {
        console.log(`| ${stage} | ${wallMs.toFixed(2)} | ${cpuMs.toFixed(2)}${mainMs === undefined ? '' : ` (main thread ${mainMs.toFixed(2)})`} |`);
      }
    }
  })();
}
