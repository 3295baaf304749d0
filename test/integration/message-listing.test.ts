import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { serviceStartTimeoutMs } from '../support/test-runtime';
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

describe('listing many messages of one address', () => {
  it('reaches every one of 110 mails of about 15 KB through the cursor chain, none missing, none twice', async () => {
    const { apiKey, email } = await service.inbox('many-mails');
    const sent: string[] = [];
    // 110 mails: the first page of 100 already passes the 1 MB a query reads at once.
    const smtp = await smtpSession(service.runtime.smtpPort);
    for (let n = 0; n < 110; n++) {
      const subject = `mail ${String(n).padStart(3, '0')}`;
      await smtp.send({
        from: 'a@example.org',
        to: email.address,
        subject,
        text: `${subject} `.repeat(50).slice(0, 500),
        html: `<p>${'<b>bold</b> words '.repeat(640)}</p>`.slice(0, 12_000),
        attachments: [{ filename: `file-${n}.bin`, content: Buffer.alloc(2048, n) }],
        // 12 KB of HTML inline on the item: 100 such items pass the 1 MB a query reads at once.
      });
      sent.push(subject);
      service.clock.advance(100);
    }
    smtp.close();
    const pages = await everyPage(apiKey, email.id, 100);
    expect(pages.map((page) => page.data.length)).toEqual([100, 10]);
    expect(pages.map((page) => page.pagination.has_more)).toEqual([true, false]);
    const listed = pages.flatMap((page) => page.data);
    expect(new Set(listed.map((item) => item.id)).size).toBe(110);
    // Newest first: the reverse of the order they were sent in.
    expect(listed.map((item) => item.subject)).toEqual([...sent].reverse());
    expect(listed.every((item) => (item as unknown as { attachment_count: number }).attachment_count === 1)).toBe(true);
  });

  it('fills each page even when the index entries alone pass 1 MB per query (every header at its bound)', async () => {
    const { apiKey, email } = await service.inbox('wide-headers');
    // 100 addresses of 300 bytes in To and a 2 KB subject: about 33 KB of listed fields per message.
    const to = Array.from({ length: 100 }, (_, i) => `${'r'.repeat(290)}${String(i).padStart(3, '0')}@example.org`);
    const sent: string[] = [];
    const smtp = await smtpSession(service.runtime.smtpPort);
    for (let n = 0; n < 45; n++) {
      const subject = `${String(n).padStart(3, '0')} ${'s'.repeat(2000)}`;
      const raw = `From: a@example.org\r\nTo: ${to.join(',\r\n ')}\r\nSubject: ${subject}\r\n\r\nbody ${n}\r\n`;
      await smtp.send({ envelope: { from: 'a@example.org', to: [email.address] }, raw });
      sent.push(subject.slice(0, 3));
      service.clock.advance(100);
    }
    smtp.close();
    const pages = await everyPage(apiKey, email.id, 40);
    expect(pages.map((page) => page.data.length)).toEqual([40, 5]);
    const listed = pages.flatMap((page) => page.data);
    expect(listed.map((item) => item.subject.slice(0, 3))).toEqual([...sent].reverse());
    expect((listed[0] as unknown as { to: string[] }).to).toHaveLength(100);
  });
});
