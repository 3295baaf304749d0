import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobsNotDeleted } from '../../lambdas/core/errors';
import type { BlobStore, ListedBlob } from '../../lambdas/core/ports/blob-store';
import { sesRawPrefix } from '../../lambdas/inbound/ses-events';
import { createSesParser } from '../../lambdas/inbound/ses-parser';
import { startTestService, type TestService } from '../support/local-service';
import { sendMail } from '../support/smtp-client';
import { wrappedBlobStore } from '../support/wrapped-blob-store';

/**
 * The expiry sweeper through the local runtime (`runtime.sweep()`, the function the scheduled
 * rule invokes), with a message lifetime of a minute and the test's clock: what a run deletes,
 * what bounds it, and what it leaves for the next run.
 */
let dataDir: string;
let service: TestService;
const ttlSeconds = 60;
const graceMs = 10 * 60 * 1000;
const minute = 60 * 1000;

/** What the tests make the blob store do besides its work. */
const blobWatch = {
  /** Moves the runtime's clock on at every batch delete, as a slow storage would spend the run's time. */
  advanceOnDelete: 0,
  /** These keys are refused one by one, as S3 refuses a key the role may not delete. */
  refused: new Set<string>(),
  /** Every key a listing under `mail/` handed out. */
  listedMail: [] as string[],
};

function watchedBlobs(blobs: BlobStore): BlobStore {
  return wrappedBlobStore(blobs, {
    deleteMany: async (keys) => {
      service.clock.advance(blobWatch.advanceOnDelete);
      const refused = keys.filter((key) => blobWatch.refused.has(key));
      await blobs.deleteMany(keys.filter((key) => !refused.includes(key)));
      if (refused.length > 0) throw new BlobsNotDeleted(refused.map((key) => ({ key, reason: 'AccessDenied' })));
    },
    list: (prefix, options) => watchListing(prefix, blobs.list(prefix, options)),
  });
}

async function* watchListing(prefix: string, listing: AsyncIterable<ListedBlob>): AsyncIterable<ListedBlob> {
  for await (const blob of listing) {
    if (prefix === 'mail/') blobWatch.listedMail.push(blob.key);
    yield blob;
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tempmail-sweep-'));
  service = await startTestService({ dataDir, messageTtlSeconds: ttlSeconds }, { wrapBlobs: watchedBlobs });
});
afterAll(async () => {
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
});
afterEach(async () => {
  // Whatever a test left goes before the next one starts.
  Object.assign(blobWatch, { advanceOnDelete: 0, refused: new Set(), listedMail: [] });
  service.clock.advance(ttlSeconds * 1000 + graceMs + minute);
  await service.runtime.sweep();
  expect(await keysUnder('mail/')).toEqual([]);
  expect(await keysUnder(sesRawPrefix)).toEqual([]);
});

const blobs = () => service.runtime.services.blobs;

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const { key } of blobs().list(prefix)) keys.push(key);
  return keys;
}

/**
 * Sends mails one second apart through the SMTP intake, each with one attachment (a blob under
 * `mail/`), its raw copy under `inbound/` as SES would keep it, and one message; returns their message ids.
 */
async function receive(count: number, localPart: string): Promise<string[]> {
  const { apiKey, email } = await service.inbox(localPart);
  for (let n = 0; n < count; n++) {
    await sendMail(service.runtime.smtpPort, { from: 'a@example.org', to: email.address, subject: `mail ${n}`, text: `mail ${n}`, attachments: [{ filename: 'a.txt', content: `file ${n}` }] });
    service.clock.advance(1000);
  }
  const listing = (await (await service.request(`/v1/emails/${email.id}/messages?limit=100`, { key: apiKey })).json()) as { data: { id: string }[] };
  return listing.data.map((message) => message.id).reverse();
}

/**
 * Delivers mails one second apart as in AWS: SES stores each under `inbound/`, the parser ingests
 * it (a small text mail keeps no blob under `mail/`). Returns their raw keys and message ids.
 */
async function receiveThroughSes(count: number, localPart: string): Promise<{ rawKeys: string[]; ids: string[] }> {
  const { email } = await service.inbox(localPart);
  const parse = createSesParser(() => service.runtime.services);
  const received = { rawKeys: [] as string[], ids: [] as string[] };
  for (let n = 0; n < count; n++) {
    const messageId = `ses-${localPart}-${n}`;
    await blobs().put(`${sesRawPrefix}${messageId}`, Buffer.from(`Subject: mail ${n}\r\n\r\nmail ${n}\r\n`));
    const { messageIds } = await parse({
      Records: [{ ses: { mail: { messageId, timestamp: service.clock.now().toISOString() }, receipt: { recipients: [email.address] } } }],
    });
    received.rawKeys.push(`${sesRawPrefix}${messageId}`);
    received.ids.push(...messageIds);
    service.clock.advance(1000);
  }
  return received;
}

async function stored(messageIds: string[]): Promise<string[]> {
  const found = await Promise.all(messageIds.map((id) => service.runtime.services.messages.get(id)));
  return messageIds.filter((_, index) => found[index] !== undefined);
}

/** Stores raw mail as SES's S3 action would, written at a given moment of the test clock. */
async function rawMailWrittenAt(id: string, at: Date): Promise<string> {
  const key = `${sesRawPrefix}${id}`;
  await blobs().put(key, Buffer.from('From: a@example.org\r\nSubject: left behind\r\n\r\nhi\r\n'));
  // The directory store keeps a blob in `<key>~blob`; its mtime is the write time the sweeper reads.
  await utimes(join(dataDir, 'blobs', `${key}~blob`), at, at);
  return key;
}

describe('the sweeper and raw mail a failed ingest left under inbound/', () => {
  it('deletes it once it is older than a message lives plus the grace, and not before', async () => {
    const start = service.clock.now();
    const old = await rawMailWrittenAt('ses-failed-0001', start);
    const young = await rawMailWrittenAt('ses-failed-0002', new Date(start.getTime() + 5 * minute));

    service.clock.advance(ttlSeconds * 1000 + graceMs - 1000);
    await service.runtime.sweep();
    expect(await keysUnder(sesRawPrefix)).toEqual([old, young]);

    service.clock.advance(2000);
    await service.runtime.sweep();
    expect(await keysUnder(sesRawPrefix)).toEqual([young]);
  });

  it('looks at a bounded slice of inbound/ a run, and the next run goes on after it', async () => {
    const written = new Date(service.clock.now().getTime() - ttlSeconds * 1000 - graceMs - minute);
    const keys = [];
    for (let n = 1; n <= 5; n++) keys.push(await rawMailWrittenAt(`ses-left-000${n}`, written));
    const runs = [];
    for (let run = 0; run < 3; run++) runs.push(await service.runtime.sweep({ limits: { inboundKeys: 2 } }));
    expect(runs.map((run) => [run.orphans, run.inboundAfter])).toEqual([
      [2, keys[1]],
      [2, keys[3]],
      [1, undefined],
    ]);
    expect(await keysUnder(sesRawPrefix)).toEqual([]);
  });
});

describe('the sweeper and expired messages', () => {
  it('works off a backlog larger than one run takes in the runs after it, each saying how old the oldest left is', async () => {
    const start = service.clock.now().getTime();
    const ids = await receive(5, 'backlog');
    // The SMTP intake keeps raw mail where SES does: the messages' pass deletes it before their items.
    expect(await keysUnder(sesRawPrefix)).toHaveLength(5);
    service.clock.advance(5 * minute);
    // The age of mail n (it arrived n seconds after the first) past its expiry, in whole seconds.
    const ageOf = (id: string) => Math.floor((service.clock.now().getTime() - (start + ids.indexOf(id) * 1000) - ttlSeconds * 1000) / 1000);
    // A run reads each of the 16 shards of the expiry index up to its share of the limit (here 1)
    // and one message more; a shard holding more ends the run below its limit, and the next run
    // goes on. How many a run takes depends on which shards the ids fell into, so the runs are
    // followed until nothing is left, each held to its bound and to the age it reports.
    const runs = [];
    let left = ids;
    while (left.length > 0 && runs.length < ids.length) {
      const run = await service.runtime.sweep({ limits: { messages: 3 } });
      const before = left.length;
      left = await stored(ids);
      runs.push(run);
      expect(run.messages).toBe(before - left.length);
      expect(run.messages).toBeGreaterThanOrEqual(1);
      expect(run.messages).toBeLessThanOrEqual(3);
      expect(run.oldestUnsweptSeconds).toBe(left.length > 0 ? Math.max(...left.map(ageOf)) : 0);
    }
    expect(left).toEqual([]);
    expect(await keysUnder(sesRawPrefix)).toEqual([]);
    expect(runs.map((run) => run.orphans)).toEqual(runs.map(() => 0));
    expect(runs.length).toBeGreaterThanOrEqual(2);
    // The blobs go in a pass of their own, not bound by the message limit: every raw mail at once.
    expect(runs[0]).toMatchObject({ blobs: 5 });
    expect(runs[0]!.oldestUnsweptSeconds).toBeGreaterThan(3 * 60);
    const reports = service.logger.lines.filter((line) => line.message === 'sweep finished').slice(-runs.length);
    expect(reports.map((line) => line.OldestUnsweptSeconds)).toEqual(runs.map((run) => run.oldestUnsweptSeconds));
    // Each report is a CloudWatch metric of the stage as well (embedded metric format).
    expect(reports[0]).toMatchObject({
      Stage: 'local',
      _aws: { CloudWatchMetrics: [{ Namespace: 'Tempmail', Dimensions: [['Stage']], Metrics: [{ Name: 'OldestUnsweptSeconds', Unit: 'Seconds' }] }] },
    });
  });

  it("leaves blobs beyond a run's count of mail/ blobs to the next run, and counts them in the age", async () => {
    const ids = await receive(4, 'blob-count');
    service.clock.advance(2 * minute);
    const first = await service.runtime.sweep({ limits: { mailBlobs: 2 } });
    // Items go through the expiry index, in a pass of their own: a blob left is found again by its key.
    expect(first).toMatchObject({ messages: 4, blobs: 2 });
    expect(await stored(ids)).toEqual([]);
    expect(await keysUnder('mail/')).toHaveLength(2);
    // The third mail arrived 2 s after the first and expired a minute later: its blob is what is left.
    expect(first.oldestUnsweptSeconds).toBe(2 * 60 + 4 - 2 - ttlSeconds);
    expect(await service.runtime.sweep()).toMatchObject({ messages: 0, blobs: 2, oldestUnsweptSeconds: 0 });
  });

  it('starts no batch once its deadline has passed on the injected clock, and the next run finishes the work', async () => {
    const { ids } = await receiveThroughSes(3, 'deadline');
    service.clock.advance(2 * minute);
    // Every batch delete (of a message's raw mail, before its item) spends 20 seconds of the run's 30.
    blobWatch.advanceOnDelete = 20_000;
    const deadline = new Date(service.clock.now().getTime() + 30_000);
    const first = await service.runtime.sweep({ deadline, limits: { batch: 1, concurrency: 1 } });
    expect(first).toMatchObject({ messages: 2 });
    expect(service.clock.now().getTime()).toBeGreaterThan(deadline.getTime());
    expect(await stored(ids)).toEqual(ids.slice(2));

    blobWatch.advanceOnDelete = 0;
    expect(await service.runtime.sweep({ limits: { batch: 1, concurrency: 1 } })).toMatchObject({ messages: 1, oldestUnsweptSeconds: 0 });
    expect(await stored(ids)).toEqual([]);
  });

  it('reads mail/ only up to the first blob of mail still within its lifetime', async () => {
    await receive(2, 'listing-old');
    service.clock.advance(30_000);
    await receive(3, 'listing-young');
    service.clock.advance(30_000);
    blobWatch.listedMail = [];
    expect(await service.runtime.sweep()).toMatchObject({ messages: 2, blobs: 2 });
    // The two expired mails' blobs and the first young one's, where the listing stopped.
    expect(blobWatch.listedMail).toHaveLength(3);
    expect(await keysUnder('mail/')).toHaveLength(3);
  });

  it("keeps a message whose raw mail storage refused, deletes the others', and fails the run naming no key", async () => {
    const { rawKeys, ids } = await receiveThroughSes(2, 'refused-raw');
    service.clock.advance(2 * minute);
    blobWatch.refused = new Set([rawKeys[0]!]);
    await expect(service.runtime.sweep()).rejects.toBeInstanceOf(BlobsNotDeleted);
    expect(await stored(ids)).toEqual(ids.slice(0, 1));
    expect(await keysUnder(sesRawPrefix)).toEqual(rawKeys.slice(0, 1));
    expect(service.logger.lines.at(-1)).toMatchObject({ level: 'error', message: 'sweep left work undone', errors: ['BlobsNotDeleted'] });
    expect(JSON.stringify(service.logger.lines.slice(-2))).not.toContain(rawKeys[0]);
    const report = service.logger.lines.filter((line) => line.message === 'sweep finished').at(-1);
    expect(report).toMatchObject({ messages: 1, oldest_unswept_seconds: 2 * 60 + 2 - ttlSeconds });

    blobWatch.refused = new Set();
    expect(await service.runtime.sweep()).toMatchObject({ messages: 1, oldestUnsweptSeconds: 0 });
    expect(await keysUnder(sesRawPrefix)).toEqual([]);
  });

  it('deletes the items of a mail whose blob under mail/ storage refused: the next run finds the blob by its key', async () => {
    const ids = await receive(2, 'refused-blob');
    const [refused] = await keysUnder('mail/');
    service.clock.advance(2 * minute);
    blobWatch.refused = new Set([refused!]);
    await expect(service.runtime.sweep()).rejects.toBeInstanceOf(BlobsNotDeleted);
    expect(await stored(ids)).toEqual([]);
    expect(await keysUnder('mail/')).toEqual([refused]);
    const report = service.logger.lines.filter((line) => line.message === 'sweep finished').at(-1);
    expect(report).toMatchObject({ messages: 2, mail_blobs: 1, oldest_unswept_seconds: 2 * 60 + 2 - ttlSeconds });

    blobWatch.refused = new Set();
    expect(await service.runtime.sweep()).toMatchObject({ blobs: 1, oldestUnsweptSeconds: 0 });
  });
});
