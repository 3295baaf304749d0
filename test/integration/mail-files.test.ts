import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { serviceStartTimeoutMs } from '../support/test-runtime';
import { sendMail, sendRaw } from '../support/smtp-client';

/**
 * What the local runtime leaves on the machine: files it holds open after the SMTP answer (seen
 * in this process's own `/proc/self/fd`, where the intake runs) and folders under the blob store
 * once the sweeper has deleted a mail's blobs.
 */
let service: TestService;
let dataDir: string;
let blobRoot: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tempmail-files-'));
  blobRoot = join(dataDir, 'blobs');
  service = await startTestService({ dataDir });
}, serviceStartTimeoutMs);
afterAll(async () => {
  await service?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The files under the blob store that this process holds open now. */
async function openBlobFiles(): Promise<string[]> {
  const open: string[] = [];
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target.startsWith(`${blobRoot}/`)) open.push(target.slice(blobRoot.length + 1));
  }
  return open;
}

/** Every folder under `dir` that holds nothing, relative to the blob store. */
async function emptyFolders(dir = blobRoot): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  if (dir !== blobRoot && entries.length === 0) return [dir.slice(blobRoot.length + 1)];
  const nested = await Promise.all(entries.filter((entry) => entry.isDirectory()).map((entry) => emptyFolders(join(dir, entry.name))));
  return nested.flat();
}

async function reply(sending: Promise<{ response: string }>): Promise<number> {
  try {
    return Number((await sending).response.slice(0, 3));
  } catch (error) {
    return (error as { responseCode: number }).responseCode;
  }
}

describe('files of received mail', () => {
  it('holds no file of a refused mail open once the refusal is answered', async () => {
    const { email } = await service.inbox('refused-files');
    const boundary = 'many';
    const attachments = Array.from(
      { length: 1200 },
      (_, n) => `--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="f${n}.bin"\r\n\r\npart ${n}\r\n`,
    ).join('');
    const refusals = [
      `From: a@example.org\r\nTo: ${email.address}\r\nX-Long: ${'a'.repeat(1_100_000)}\r\n\r\nbody\r\n`,
      `From: a@example.org\r\nTo: ${email.address}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="${boundary}"\r\n\r\n${attachments}--${boundary}--\r\n`,
    ];
    expect(await openBlobFiles()).toEqual([]);
    for (const raw of refusals) {
      expect(await reply(sendRaw(service.runtime.smtpPort, { from: 'a@example.org', to: [email.address] }, raw))).toBeGreaterThanOrEqual(550);
      expect(await openBlobFiles()).toEqual([]);
    }
  });

  it('leaves no empty folder behind once the sweeper has deleted expired mail', async () => {
    const { apiKey, email } = await service.inbox('swept-folders');
    for (let n = 0; n < 3; n++) {
      await sendMail(service.runtime.smtpPort, {
        from: 'a@example.org',
        to: email.address,
        subject: `with files ${n}`,
        text: 'x'.repeat(40_000),
        html: `<p>${'y'.repeat(40_000)}</p>`,
        attachments: [{ filename: 'a.txt', content: 'attached' }, { filename: 'b.txt', content: 'attached too' }],
      });
    }
    const listed = (await json(await service.request(`/v1/emails/${email.id}/messages`, { key: apiKey }))).data;
    expect(listed).toHaveLength(3);
    const mailIds = await Promise.all(listed.map(async (item: { id: string }) => (await service.runtime.services.messages.get(item.id))!.mailId));
    const folders = async () => (await readdir(join(blobRoot, 'mail')).catch(() => [] as string[])).filter((name) => mailIds.includes(name));
    // Each mail has its raw source, both bodies and two attachments under att/.
    expect(await folders()).toHaveLength(3);

    service.clock.advance(15 * 60 * 1000);
    expect((await service.runtime.sweep()).messages).toBeGreaterThanOrEqual(3);
    expect(await folders()).toEqual([]);
    expect(await emptyFolders()).toEqual([]);
  });
});
