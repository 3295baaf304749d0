import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { byRuntime, serviceStartTimeoutMs } from '../support/test-runtime';
import type Mail from 'nodemailer/lib/mailer';
import { smtpSession } from '../support/smtp-client';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
}, serviceStartTimeoutMs);
afterAll(() => service.close());


/** Follows the cursor chain from the first page to the last; every page must answer 200. */
async function everyPage(key: string, emailId: string, limit: number) {
  const pages: { data: { id: string; subject: string }[]; pagination: { has_more: boolean; next_cursor?: string } }[] = [];
  let cursor: string | undefined;
  do {
    const query = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await service.request(`/v1/emails/${emailId}/messages${query}`, { key });
    expect(response.status).toBe(200);
    const page = await json(response);
    pages.push(page);
    cursor = page.pagination.has_more ? page.pagination.next_cursor : undefined;
  } while (cursor);
  return pages;
}

/**
 * Sends mails `n` = 0 .. count-1 in rounds of `lanes` at once, one SMTP session per lane, and
 * moves the clock 100 ms after each round: a round's mails are received at one moment (a tie the
 * listing orders by message id), the rounds at moments in the order they were sent. One mail at
 * a time took most of a test's 30 s on start:stack, where each 250 waits on the bucket and the
 * recipient filter function. Resolves with the round each mail `n` was received in.
 */
async function sendInRounds(count: number, lanes: number, mail: (n: number) => Mail.Options): Promise<(n: number) => number> {
  const sessions = await Promise.all(Array.from({ length: lanes }, () => smtpSession(service.runtime.smtpPort)));
  try {
    for (let first = 0; first < count; first += lanes) {
      await Promise.all(sessions.slice(0, count - first).map((session, lane) => session.send(mail(first + lane))));
      service.clock.advance(100);
    }
  } finally {
    for (const session of sessions) session.close();
  }
  return (n) => Math.floor(n / lanes);
}

/**
 * Each test delivers tens of mails. On start:stack every one is an S3 write judged against the
 * bucket's policy, a recipient filter invocation and a parser invocation whose every storage call
 * is judged against its role: 110 of them took 24 s on a loaded 2-core machine.
 */
const mailingTimeoutMs = byRuntime({ 'npm start': 30_000, 'start:stack': 60_000 });

describe('listing many messages of one address', () => {
  it('reaches every one of 110 mails through the cursor chain, a full page of 100 and the rest, none missing, none twice', async () => {
    const { apiKey, email } = await service.inbox('many-mails');
    // 110 mails: one page at the largest limit and a second one, the cut between mails received at
    // one moment. Each mail is a short text: a listing reads the by_email index, which holds the
    // listed fields only (a body never reaches it), so a first page of 100 is one query whatever
    // the bodies weigh; a page that passes the 1 MB a query reads at once is the next test's.
    const subject = (n: number) => `mail ${String(n).padStart(3, '0')}`;
    const roundOf = await sendInRounds(110, 11, (n) => ({
      from: 'a@example.org',
      to: email.address,
      subject: subject(n),
      text: `${subject(n)} body`,
    }));
    const pages = await everyPage(apiKey, email.id, 100);
    expect(pages.map((page) => page.data.length)).toEqual([100, 10]);
    expect(pages.map((page) => page.pagination.has_more)).toEqual([true, false]);
    const listed = pages.flatMap((page) => page.data);
    expect(new Set(listed.map((item) => item.id)).size).toBe(110);
    const sent = Array.from({ length: 110 }, (_, n) => n);
    expect(listed.map((item) => Number(item.subject.slice(5))).sort((a, b) => a - b)).toEqual(sent);
    // Newest first: the rounds in the reverse of the order they were sent in.
    expect(listed.map((item) => roundOf(Number(item.subject.slice(5))))).toEqual(sent.map(roundOf).reverse());
  }, mailingTimeoutMs);

  it('fills each page even when the index entries alone pass 1 MB per query (every header at its bound)', async () => {
    const { apiKey, email } = await service.inbox('wide-headers');
    // 100 addresses of 300 bytes in To and a 2 KB subject: about 33 KB of listed fields per message.
    const to = Array.from({ length: 100 }, (_, i) => `${'r'.repeat(290)}${String(i).padStart(3, '0')}@example.org`);
    const roundOf = await sendInRounds(45, 9, (n) => ({
      envelope: { from: 'a@example.org', to: [email.address] },
      raw: `From: a@example.org\r\nTo: ${to.join(',\r\n ')}\r\nSubject: ${String(n).padStart(3, '0')} ${'s'.repeat(2000)}\r\n\r\nbody ${n}\r\n`,
    }));
    const pages = await everyPage(apiKey, email.id, 40);
    expect(pages.map((page) => page.data.length)).toEqual([40, 5]);
    const listed = pages.flatMap((page) => page.data);
    const sent = Array.from({ length: 45 }, (_, n) => n);
    expect(listed.map((item) => Number(item.subject.slice(0, 3))).sort((a, b) => a - b)).toEqual(sent);
    expect(listed.map((item) => roundOf(Number(item.subject.slice(0, 3))))).toEqual(sent.map(roundOf).reverse());
    expect((listed[0] as unknown as { to: string[] }).to).toHaveLength(100);
  }, mailingTimeoutMs);
});
