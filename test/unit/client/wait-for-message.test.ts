import { waitForMessage, type Message, type MessageListItem, type WaitingClient } from '../../../client/src';

/** An inbox listed newest first, two per page, with a fake clock; mail arrives when the test says. */
function fakeInbox() {
  let now = Date.parse('2026-11-22T12:00:00Z');
  const messages: Message[] = [];
  const calls: string[] = [];
  const arrive = (subject: string, text = '') =>
    messages.unshift({
      id: `msg_${String(messages.length).padStart(10, '0')}`,
      email_id: 'eml_aaaaaaaaaa',
      from: 'App <app@example.com>',
      to: ['x@tempmail.localhost'],
      subject,
      received_at: new Date(now).toISOString(),
      expires_at: new Date(now + 900_000).toISOString(),
      size_bytes: 10,
      attachment_count: 0,
      source_path: '/v1/messages/msg_0000000000/source',
      text,
      html: '',
      attachments: [],
    });
  const client: WaitingClient & { onSleep?: (count: number) => void } = {
    async listMessages(_emailId, query = {}) {
      calls.push(`list ${query.cursor ?? ''}`);
      const start = query.cursor ? Number(query.cursor) : 0;
      const data: MessageListItem[] = messages.slice(start, start + 2).map(({ text: _t, html: _h, attachments: _a, ...item }) => item);
      const more = start + 2 < messages.length;
      return { data, pagination: more ? { has_more: true, next_cursor: String(start + 2) } : { has_more: false } };
    },
    async getMessage(id) {
      calls.push(`get ${id}`);
      return messages.find((message) => message.id === id)!;
    },
    now: () => now,
    sleep: async (ms) => {
      now += ms;
      sleeps++;
      client.onSleep?.(sleeps);
    },
  };
  let sleeps = 0;
  return { client, arrive, calls, advance: (ms: number) => (now += ms) };
}

describe('waitForMessage', () => {
  it('pages through the whole list once, then stops at the first page an earlier poll saw', async () => {
    const inbox = fakeInbox();
    for (let i = 0; i < 5; i++) inbox.arrive(`old ${i}`);
    inbox.client.onSleep = (count) => count === 1 && inbox.arrive('Your code');
    const message = await waitForMessage(inbox.client, 'eml_aaaaaaaaaa', { match: { subject: 'code' } });
    expect(message.subject).toBe('Your code');
    expect(inbox.calls).toEqual(['list ', 'list 2', 'list 4', 'list ', `get ${message.id}`]);
  });

  it('stops paging at the first message older than `since`: one page per poll, however long the list', async () => {
    const inbox = fakeInbox();
    for (let i = 0; i < 5; i++) inbox.arrive(`old ${i}`);
    inbox.advance(5_000);
    const since = new Date(inbox.client.now());
    inbox.client.onSleep = (count) => count === 1 && inbox.arrive('Your code');
    const message = await waitForMessage(inbox.client, 'eml_aaaaaaaaaa', { since, match: { subject: 'code' } });
    expect(message.subject).toBe('Your code');
    expect(inbox.calls).toEqual(['list ', 'list ', `get ${message.id}`]);
  });

  it('ignores messages received before `since`, and reads a candidate once to test its body', async () => {
    const inbox = fakeInbox();
    inbox.arrive('Your code', 'code 111111');
    inbox.advance(5_000);
    const since = new Date(inbox.client.now());
    inbox.client.onSleep = (count) => {
      if (count === 1) inbox.arrive('Your code', 'no digits here');
      if (count === 2) inbox.arrive('Your code', 'code 222222');
    };
    const message = await waitForMessage(inbox.client, 'eml_aaaaaaaaaa', { since, match: { subject: 'code', body: /\d{6}/ } });
    expect(message.text).toBe('code 222222');
    expect(inbox.calls.filter((call) => call.startsWith('get'))).toHaveLength(2);
  });
});
