import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sesRawPrefix } from '../../lambdas/inbound/ses-events';
import { startTestService, type TestService } from '../support/local-service';

let dataDir: string;
let service: TestService;
const ttlSeconds = 60;
const graceMs = 10 * 60 * 1000;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tempmail-sweep-'));
  service = await startTestService({ dataDir, messageTtlSeconds: ttlSeconds });
});
afterEach(async () => {
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Stores raw mail as SES's S3 action would, written at a given moment of the test clock. */
async function rawMailWrittenAt(id: string, at: Date): Promise<string> {
  const key = `${sesRawPrefix}${id}`;
  await service.runtime.services.blobs.put(key, Buffer.from('From: a@example.org\r\nSubject: left behind\r\n\r\nhi\r\n'));
  // The directory store keeps a blob in `<key>~blob`; its mtime is the write time the sweeper reads.
  await utimes(join(dataDir, 'blobs', `${key}~blob`), at, at);
  return key;
}

describe('the sweeper and raw mail a failed ingest left under inbound/', () => {
  it('deletes it once it is older than a message lives plus the grace, and not before', async () => {
    const start = service.clock.now();
    const old = await rawMailWrittenAt('ses-failed-0001', start);
    const young = await rawMailWrittenAt('ses-failed-0002', new Date(start.getTime() + 5 * 60 * 1000));

    service.clock.advance(ttlSeconds * 1000 + graceMs - 1000);
    await service.runtime.sweep();
    expect(await service.runtime.services.blobs.get(old)).toBeDefined();

    service.clock.advance(2000);
    await service.runtime.sweep();
    expect(await service.runtime.services.blobs.get(old)).toBeUndefined();
    expect(await service.runtime.services.blobs.get(young)).toBeDefined();
  });
});
