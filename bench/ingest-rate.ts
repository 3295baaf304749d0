import { setTimeout as delay } from 'node:timers/promises';
import { createTransport } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Corpus } from './support/mail-corpus';
import { processCpuMs } from './support/process-cpu';
import { quantile } from './support/stats';
import type { IngestTarget } from './support/targets';

export interface IngestRound {
  /** Mails per second from the first send to the moment the API lists every one. */
  messagesPerSecond: number;
  /** Milliseconds from a mail's 250 answer to its first appearance in the listing. */
  p50ListedMs: number;
  p99ListedMs: number;
  /** Mails per second answered 250, from the first send to the last answer. */
  acceptedPerSecond: number;
  /**
   * The receiving process's CPU milliseconds per mail over the round, all threads and the main
   * thread alone (Linux), listings included: what a mail costs whatever else runs on the machine.
   */
  cpuMsPerMail?: number;
  mainThreadCpuMsPerMail?: number;
}

/**
 * How often the bench lists while mail arrives, on both services alike: often enough to time a
 * mail's arrival to a few tens of milliseconds, seldom enough that the listing is not most of the
 * load (a listing of 300 messages is three charged pages here).
 */
const pollIntervalMs = 50;

/**
 * One round of ingest as a user feels it: the corpus is sent over `connections` pooled SMTP
 * connections (nodemailer, as applications send), while the bench lists the recipient's mail
 * through the service's API until every mail is listed. The mails are compiled before the clock
 * starts so that the bench's own MIME building does not count.
 */
export async function measureIngestRound(target: IngestTarget, corpus: Corpus, connections: number): Promise<IngestRound> {
  const recipient = await target.newRound();
  const runId = Math.random().toString(36).slice(2, 10);
  const mails = await Promise.all(
    Array.from({ length: corpus.count }, async (_, index) => {
      const mail = corpus.mail(index, runId);
      const raw = await new MailComposer({ from: 'bench@example.org', to: recipient, ...mail }).compile().build();
      return { subject: mail.subject, raw };
    }),
  );
  const transport = createTransport({
    host: '127.0.0.1',
    port: target.smtpPort,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: connections,
    maxMessages: Number.POSITIVE_INFINITY,
  });
  const accepted = new Map<string, number>();
  const listed = new Map<string, number>();
  const cpuBefore = target.pid === undefined ? undefined : processCpuMs(target.pid);
  const started = performance.now();
  let sending = true;
  const poller = (async () => {
    while (listed.size < mails.length) {
      const subjects = await target.listSubjects();
      const now = performance.now();
      for (const subject of subjects) if (!listed.has(subject)) listed.set(subject, now);
      if (!sending && listed.size < mails.length && now - started > 120_000) throw new Error(`only ${listed.size} of ${mails.length} listed`);
      if (listed.size < mails.length) await delay(pollIntervalMs);
    }
    return performance.now();
  })();
  try {
    await Promise.all(
      mails.map(async ({ subject, raw }) => {
        await transport.sendMail({ envelope: { from: 'bench@example.org', to: [recipient] }, raw });
        accepted.set(subject, performance.now());
      }),
    );
  } finally {
    sending = false;
    transport.close();
  }
  const acceptedAt = performance.now();
  const finished = await poller;
  const cpuAfter = target.pid === undefined ? undefined : processCpuMs(target.pid);
  const delays = mails.map(({ subject }) => listed.get(subject)! - accepted.get(subject)!);
  return {
    messagesPerSecond: mails.length / ((finished - started) / 1000),
    p50ListedMs: Math.max(0, quantile(delays, 0.5)),
    p99ListedMs: Math.max(0, quantile(delays, 0.99)),
    acceptedPerSecond: mails.length / ((acceptedAt - started) / 1000),
    ...(cpuBefore && cpuAfter
      ? {
          cpuMsPerMail: (cpuAfter.totalMs - cpuBefore.totalMs) / mails.length,
          mainThreadCpuMsPerMail: (cpuAfter.mainThreadMs - cpuBefore.mainThreadMs) / mails.length,
        }
      : {}),
  };
}
