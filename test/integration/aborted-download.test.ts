import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readdir, readlink } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { BlobStore } from '../../lambdas/core/ports/blob-store';
import { contractDownload } from '../support/contract';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { sendMail } from '../support/smtp-client';
import { wrappedBlobStore } from '../support/wrapped-blob-store';

let service: TestService;
/** Every blob body the store hands out, with the key it was read for. */
const opened: { key: string; body: Readable; closed: Promise<unknown> }[] = [];

/** Records each blob read's body stream, to watch it close. */
function watchedBlobs(blobs: BlobStore): BlobStore {
  return wrappedBlobStore(blobs, {
    get: async (key, options) => {
      const read = await blobs.get(key, options);
      if (read && !read.notModified) {
        // 'close' whether the stream ended or was destroyed with an error.
        const closed = new Promise((resolve) => read.body.once('close', resolve));
        opened.push({ key, body: read.body, closed });
      }
      return read;
    },
  });
}

beforeAll(async () => {
  service = await startTestService({}, { wrapBlobs: watchedBlobs });
}, 60_000);
afterAll(() => service.close());

/** Files of this process's open descriptors whose path lies under the blob store. */
async function openBlobFiles(): Promise<string[]> {
  const targets = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return targets.filter((target) => target.includes('tempmail-blobs-') && target.endsWith('~blob'));
}

/** Starts a download, takes its first chunk of body, then disconnects as a client that gives up would. */
async function abortAfterFirstChunk(path: string, key: string): Promise<number> {
  const { request, response } = await contractDownload(new URL(`${service.runtime.apiUrl}${path}`), { Authorization: `Bearer ${key}` });
  const [first] = (await once(response, 'data')) as [Buffer];
  request.destroy();
  return response.statusCode === 200 ? first.length : -1;
}

/** Resolves when the promise does, or fails the test naming what did not happen in time. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a download the client abandons mid-body', () => {
  let apiKey: string;
  let messageId: string;
  let attachmentPath: string;

  beforeAll(async () => {
    const account = await service.account('paid');
    apiKey = account.apiKey;
    const email = (await json(await service.createEmail(apiKey, { local_part: 'big-files' }))).data;
    // Larger than the loopback socket buffers, so the body cannot all be handed to the kernel before the client leaves.
    await sendMail(service.runtime.smtpPort, {
      from: 'sender@example.org',
      to: 'big-files@tempmail.localhost',
      subject: 'large',
      text: 'see attachment',
      attachments: [{ filename: 'large.bin', content: randomBytes(16 * 1024 * 1024) }],
    });
    const list = await json(await service.request(`/v1/emails/${email.id}/messages`, { key: apiKey }));
    messageId = list.data[0].id;
    const message = await json(await service.request(`/v1/messages/${messageId}`, { key: apiKey }));
    attachmentPath = message.data.attachments[0].download_path;
  }, 60_000);

  it.each([
    ['raw source', () => `/v1/messages/${messageId}/source`],
    ['attachment', () => attachmentPath],
  ])('closes the %s file at once', async (_name, path) => {
    opened.length = 0;
    expect(await abortAfterFirstChunk(path(), apiKey)).toBeGreaterThan(0);
    expect(opened).toHaveLength(1);
    const [read] = opened;
    await within(5_000, `closing the blob file after the client left (${read!.key})`, read!.closed);
    expect(read!.body.destroyed).toBe(true);
    expect(await openBlobFiles()).toEqual([]);
  });

  it('still serves the whole file to a client that stays', async () => {
    const response = await service.request(attachmentPath, { key: apiKey });
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBe(16 * 1024 * 1024);
    expect(await openBlobFiles()).toEqual([]);
  });
});
