import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { connect } from '../../cli/connect';
import { systemClock } from '../../lambdas/adapters/system-clock';
import { openAccount } from '../../lambdas/core/accounts';
import { issueApiKey } from '../../lambdas/core/api-keys';
import { contractFetch } from '../support/contract';
import { json } from '../support/json';
import { spawnStartCommand, type SpawnedService } from '../support/spawn-service';

/**
 * The design's rule for a crash: at most orphans the sweeper removes, never a listed message that
 * cannot be read. The local runtime is killed with SIGKILL while mail is being written, several
 * times over, and then every listed message must be readable.
 */
const addressCount = 20;
/** Connections that start their mails together, so that at the first acknowledgement the others are mid-write. */
const senders = 16;
const recipientsPerMail = 5;
const rounds = 8;

let dataDir: string;
let service: SpawnedService | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tempmail-crash-'));
});
afterAll(async () => {
  await service?.stop('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

// The start script's command without npm: each SIGKILL reaches the service itself, and npm's start-up
// (about half a second of processor time) is not what this suite tests.
const start = () => spawnStartCommand({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });

async function api(path: string, key: string, init: RequestInit = {}) {
  return contractFetch(`${service!.apiUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, ...init.headers } });
}

/** Sends mail to every address, from several connections at once, until the service dies; returns the acknowledged subjects. */
function sendUntilKilled(smtpPort: number, round: number, addresses: string[]) {
  const acknowledged: { subject: string; recipients: string[] }[] = [];
  let onAck: (() => void) | undefined;
  const loops = Array.from({ length: senders }, async (_, sender) => {
    const first = (sender * recipientsPerMail) % addresses.length;
    const recipients = addresses.slice(first, first + recipientsPerMail);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    try {
      for (let n = 0; ; n++) {
        const subject = `round ${round} sender ${sender} mail ${n}`;
        await transport.sendMail({ envelope: { from: 'load@example.org', to: recipients }, from: 'load@example.org', to: recipients[0], subject, text: subject });
        acknowledged.push({ subject, recipients });
        onAck?.();
      }
    } catch {
      // The service was killed: the mail in flight was never acknowledged.
    } finally {
      transport.close();
    }
  });
  return {
    acknowledged,
    /** Resolves once `count` mails have been acknowledged. */
    acked: (count: number) =>
      new Promise<void>((resolve) => {
        onAck = () => acknowledged.length >= count && resolve();
        onAck();
      }),
    done: Promise.all(loops),
  };
}

async function listAll(key: string, emailId: string): Promise<{ id: string; subject: string }[]> {
  const items: { id: string; subject: string }[] = [];
  let cursor: string | undefined;
  do {
    const query = `?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await api(`/v1/emails/${emailId}/messages${query}`, key);
    expect(response.status).toBe(200);
    const page = await json(response);
    items.push(...page.data);
    cursor = page.pagination.has_more ? page.pagination.next_cursor : undefined;
  } while (cursor);
  return items;
}

describe('the local runtime killed with SIGKILL while it writes mail', () => {
  it('never lists a message that cannot be read, and keeps every acknowledged one', async () => {
    service = await start();
    // Two accounts of two keys each, so that reading every message back stays within the short-window limits.
    // Opened as the operator CLI opens them (its connection to the running service's storage), in this process.
    const keys: string[] = [];
    const operator = await connect({ DATA_DIR: dataDir });
    try {
      const deps = { ...operator.stores, clock: systemClock };
      for (let account = 0; account < 2; account++) {
        const opened = await openAccount({ plan: 'paid', env: operator.service?.env ?? 'local' }, deps);
        keys.push(opened.apiKey, (await issueApiKey(opened.accountId, deps)).apiKey);
      }
    } finally {
      await operator.close();
    }
    const emails: { id: string; address: string; key: string }[] = [];
    for (let i = 0; i < addressCount; i++) {
      const key = keys[i % keys.length]!;
      const created = await api('/v1/emails', key, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `crash-test-address-${i}` },
        body: JSON.stringify({ local_part: `crash${i}` }),
      });
      expect(created.status).toBe(201);
      const { data } = await json(created);
      emails.push({ id: data.id, address: data.address, key });
    }

    const acknowledged: { subject: string; recipients: string[] }[] = [];
    for (let round = 0; round < rounds; round++) {
      const sending = sendUntilKilled(service.smtpPort, round, emails.map((email) => email.address));
      // Kill while the other connections' mails are being written: at the first acknowledgement.
      await sending.acked(1);
      await service.stop('SIGKILL');
      await sending.done;
      acknowledged.push(...sending.acknowledged);
      service = await start();
    }

    const unreadable: string[] = [];
    const acknowledgedSubjects = new Set(acknowledged.map((mail) => mail.subject));
    let writtenInFlight = 0;
    for (const email of emails) {
      const listed = await listAll(email.key, email.id);
      writtenInFlight += listed.filter((item) => !acknowledgedSubjects.has(item.subject)).length;
      for (const item of listed) {
        const read = await api(`/v1/messages/${item.id}`, email.key);
        if (read.status !== 200) unreadable.push(`${email.address}: ${item.id} (${item.subject}) answered ${read.status}`);
      }
      const subjects = new Set(listed.map((item) => item.subject));
      const expected = acknowledged.filter((mail) => mail.recipients.includes(email.address)).map((mail) => mail.subject);
      expect(expected.filter((subject) => !subjects.has(subject))).toEqual([]);
    }
    expect(unreadable).toEqual([]);
    // The kills landed while mail was being written: messages of never-acknowledged mail were stored.
    expect(writtenInFlight).toBeGreaterThan(0);
    await service.stop();
    service = undefined;
  }, 240_000);
});
