/**
 * What hostile HTML costs at ingest: the parse and the sanitizing of one mail (`readMail`, what
 * the SES parser and the local SMTP intake run), by size, against a benign mail of the same size
 * measured in the same run. Deeply nested HTML cost time growing with the square of its depth
 * (htmlparser2's stack); bounded first, each doubling of the size should about double the time.
 * The longest stretch the event loop was blocked is reported too: the local service answers HTTP
 * on the same loop. Figures are process CPU milliseconds (stable on a loaded machine), medians.
 *
 *   node --import tsx bench/hostile-html.ts [rounds] [--only case,case]   # rounds: default 3
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { readMail } from '../lambdas/mail/ingest-mail';
import { median } from './support/stats';
import { drainingBlobs } from './support/draining-blobs';

const megabyte = 1024 * 1024;

/** One HTML-only mail around `html`, as it arrives over SMTP. */
const htmlMail = (html: string) =>
  Buffer.from(`From: a@example.org\r\nTo: b@example.org\r\nSubject: bench\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n`);

/** `levels` nested `<div>`s around one line of text: 11 bytes per level. */
const nested = (levels: number) => `${'<div>'.repeat(levels)}deep text${'</div>'.repeat(levels)}`;
/** Blocks nested exactly as deep as the limit allows, one after another, to `bytes`: the most work per byte once bounded. */
const atTheLimit = (bytes: number) => {
  const block = nested(512);
  return block.repeat(Math.max(1, Math.round(bytes / block.length)));
};
/** Plain paragraphs of a newsletter, to `bytes`: the reference. */
const benign = (bytes: number) => {
  const paragraph = '<p style="color:#333">Our spring collection is here: <a href="https://shop.example/new">see what is new</a>.</p>\n';
  return paragraph.repeat(Math.max(1, Math.round(bytes / paragraph.length)));
};
/** A mail of about `bytes` around an inline `data:` image of `imageBytes` (base64) and a `data:` link. */
const inlineImage = (bytes: number, imageBytes: number) => {
  const image = Buffer.alloc(Math.round((imageBytes * 3) / 4), 7).toString('base64');
  return `<p>Hello <img alt="Logo" src="data:image/png;base64,${image}"></p>${benign(bytes - imageBytes)}`;
};

interface Case {
  name: string;
  html: () => string;
  /** Rounds at most: the 40 MB cases take long on a shared machine. */
  rounds?: number;
}

const cases: Case[] = [
  ...[1, 2, 4].map((scale) => ({ name: `nested ${scale}00,000 levels`, html: () => nested(scale * 100_000) })),
  ...[1.1, 2.2, 4.4].map((size) => ({ name: `benign ${size} MB`, html: () => benign(size * megabyte) })),
  ...[1.1, 2.2, 4.4].map((size) => ({ name: `512-deep blocks ${size} MB`, html: () => atTheLimit(size * megabyte) })),
  { name: 'inline data: image 5 MB in 9 MB', html: () => inlineImage(9 * megabyte, 5 * megabyte) },
  { name: 'nested 40 MB (3.8 million levels)', html: () => nested(Math.round((40 * megabyte) / 11)), rounds: 1 },
  { name: '512-deep blocks 40 MB', html: () => atTheLimit(40 * megabyte), rounds: 1 },
  { name: 'benign 40 MB', html: () => benign(40 * megabyte), rounds: 1 },
];

interface Figures {
  mailBytes: number;
  cpuMs: number;
  /** The longest the event loop was blocked during the read. */
  longestStallMs: number;
  textChars: number;
  htmlChars: number;
}

async function measure(raw: Buffer, index: number): Promise<Figures> {
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  const cpu = process.cpuUsage();
  const parsed = await readMail(Readable.from([raw]), { blobs: drainingBlobs, mailId: `bench-${index}` });
  const used = process.cpuUsage(cpu);
  // The stall that ends with the read is recorded when the monitor's timer next runs.
  await delay(50);
  stalls.disable();
  return {
    mailBytes: raw.length,
    cpuMs: (used.user + used.system) / 1000,
    longestStallMs: stalls.max / 1e6,
    textChars: parsed.text.length,
    htmlChars: parsed.html.length,
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rounds = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 3);
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1]!.split(',') : undefined;
  const chosen = cases.filter((entry) => !only || only.some((word) => entry.name.includes(word)));
  console.log(`| case | mail | CPU ms, median (min–max) | ms per MB | longest stall ms | text chars | html chars |`);
  console.log(`|---|---:|---:|---:|---:|---:|---:|`);
  let index = 0;
  for (const entry of chosen) {
    const raw = htmlMail(entry.html());
    const figures: Figures[] = [];
    for (let round = 0; round < Math.min(rounds, entry.rounds ?? rounds); round += 1) figures.push(await measure(raw, (index += 1)));
    const cpu = figures.map((figure) => figure.cpuMs);
    const mb = raw.length / megabyte;
    const last = figures[figures.length - 1]!;
    console.log(
      `| ${entry.name} | ${mb.toFixed(1)} MB | ${median(cpu).toFixed(0)} (${Math.min(...cpu).toFixed(0)}–${Math.max(...cpu).toFixed(0)}) | ` +
        `${(median(cpu) / mb).toFixed(0)} | ${median(figures.map((figure) => figure.longestStallMs)).toFixed(0)} | ${last.textChars} | ${last.htmlChars} |`,
    );
  }
}

void main();
