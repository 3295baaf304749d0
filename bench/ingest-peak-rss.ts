/**
 * Peak RSS of the ingest path for a message with a 25 MB attachment (issue: under 300 MB,
 * because attachments stream to the blob store). Each measurement runs in a fresh Node process;
 * the reference is mailparser's simpleParser, which buffers every attachment, measured in the
 * same run. Prints medians and the ratio.
 *
 *   node --import tsx bench/ingest-peak-rss.ts [runs]
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { simpleParser } from 'mailparser';
import { DirectoryBlobStore } from '../lambdas/adapters/blobs/directory-blob-store';
import { parseMail } from '../lambdas/mail/parse-mail';

const attachmentBytes = 25 * 1024 * 1024;
const mailFile = join(tmpdir(), 'tempmail-bench-25mb.eml');

/** Writes the test mail once: a text part and a 25 MB base64 attachment of pseudo-random bytes. */
async function ensureMail(): Promise<void> {
  if (existsSync(mailFile)) return;
  const out = createWriteStream(mailFile);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(
    'From: bench@example.org\r\nTo: bench@tempmail.localhost\r\nSubject: 25 MB\r\nMIME-Version: 1.0\r\n' +
      'Content-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nbench\r\n--b\r\n' +
      'Content-Type: application/octet-stream; name="big.bin"\r\nContent-Transfer-Encoding: base64\r\n' +
      'Content-Disposition: attachment; filename="big.bin"\r\n\r\n',
  );
  let seed = 42;
  const chunk = Buffer.alloc(57 * 1024);
  for (let written = 0; written < attachmentBytes; written += chunk.length) {
    for (let i = 0; i < chunk.length; i++) chunk[i] = (seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16;
    const base64 = chunk.subarray(0, Math.min(chunk.length, attachmentBytes - written)).toString('base64');
    await write(base64.replace(/.{76}/g, '$&\r\n') + '\r\n');
  }
  await write('--b--\r\n');
  out.end();
  await once(out, 'finish');
}

/** One measurement, in this (fresh) process: peak RSS in MB. */
async function measure(mode: string): Promise<number> {
  if (mode === 'stream') {
    const root = mkdtempSync(join(tmpdir(), 'tempmail-bench-blobs-'));
    mkdirSync(root, { recursive: true });
    const parsed = await parseMail(createReadStream(mailFile), { blobs: new DirectoryBlobStore(root), keyPrefix: 'mail/bench' });
    if (parsed.attachments[0]?.sizeBytes !== attachmentBytes) throw new Error('attachment size mismatch');
    rmSync(root, { recursive: true, force: true });
  } else {
    const parsed = await simpleParser(createReadStream(mailFile));
    if (parsed.attachments[0]?.size !== attachmentBytes) throw new Error('attachment size mismatch');
  }
  return process.resourceUsage().maxRSS / 1024;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const asJson = args.includes('--json');
  const [mode, runsArg] = args.filter((arg) => arg !== '--json');
  if (mode === 'stream' || mode === 'buffer') {
    process.stdout.write(`${(await measure(mode)).toFixed(1)}\n`);
    return;
  }
  await ensureMail();
  const runs = Number(mode ?? runsArg ?? 5) || 5;
  const results: Record<string, number[]> = { stream: [], buffer: [] };
  for (let run = 0; run < runs; run++) {
    for (const which of ['stream', 'buffer'] as const) {
      const child = spawnSync(process.execPath, ['--import', 'tsx', __filename, which], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(child.stderr);
      results[which]!.push(Number(child.stdout.trim()));
    }
  }
  const stream = median(results.stream!);
  const buffer = median(results.buffer!);
  if (asJson) {
    process.stdout.write(`${JSON.stringify({ runs, streamMb: stream, bufferMb: buffer, targetMb: 300 })}\n`);
    return;
  }
  console.log(`ingest of a 25 MB attachment, peak RSS, median of ${runs} fresh processes:`);
  console.log(`  parseMail (streams attachments to the blob store): ${stream.toFixed(1)} MB`);
  console.log(`  reference simpleParser (buffers attachments):      ${buffer.toFixed(1)} MB`);
  console.log(`  ratio: ${(stream / buffer).toFixed(2)}; target under 300 MB: ${stream < 300 ? 'met' : 'NOT met'}`);
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
