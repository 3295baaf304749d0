import { deliverOnce, type UndeliveredMessage } from '../../../lambdas/core/deliveries';
import type { MessageRecord, MessageStore } from '../../../lambdas/core/mail-ports';
import { TestClock } from '../../support/test-clock';

/** The message store's conditional write and consistent read, over a map. */
function memoryMessages(): MessageStore & { items: Map<string, MessageRecord> } {
  const items = new Map<string, MessageRecord>();
  return {
    items,
    put: async (message) => {
      if (items.has(message.messageId)) return 'exists';
      items.set(message.messageId, message);
      return 'created';
    },
    get: async (messageId) => items.get(messageId),
    listByEmail: async () => ({ items: [] }),
    expiring: async () => [],
    delete: async (messageId) => void items.delete(messageId),
  };
}

const ttlSeconds = 900;

function received(at: Date): UndeliveredMessage {
  return {
    emailId: 'eml_1234567890',
    accountId: 'acc_1',
    mailId: `${at.getTime()}-AbCdEfGhIjKl`,
    from: 'a@example.org',
    to: [],
    subject: 's',
    receivedAt: at.toISOString(),
    expiresAt: new Date(at.getTime() + ttlSeconds * 1000).toISOString(),
    sizeBytes: 10,
    text: { inline: 't' },
    html: { inline: '' },
    attachments: { inline: [] },
    attachmentCount: 0,
    rawKey: `mail/${at.getTime()}-AbCdEfGhIjKl/raw`,
  };
}

describe('deliverOnce: one live message per mail and address', () => {
  it('finds the live copy written just before a window boundary when the same mail comes again just after it', async () => {
    const clock = new TestClock('2026-11-22T12:14:59.999Z');
    const deps = { messages: memoryMessages(), clock, messageTtlSeconds: ttlSeconds };
    const first = await deliverOnce(received(clock.now()), 'sha256:abc', deps);
    expect(first.outcome).toBe('created');
    clock.advance(1);
    expect(await deliverOnce(received(clock.now()), 'sha256:abc', deps)).toEqual({ messageId: first.messageId, outcome: 'exists' });
    // Until the first copy expires, at 12:29:59.999; from then on the same mail is a new message.
    clock.advance(15 * 60 * 1000 - 2);
    expect(await deliverOnce(received(clock.now()), 'sha256:abc', deps)).toEqual({ messageId: first.messageId, outcome: 'exists' });
    clock.advance(1);
    const again = await deliverOnce(received(clock.now()), 'sha256:abc', deps);
    expect(again.outcome).toBe('created');
    expect(again.messageId).not.toBe(first.messageId);
    expect(deps.messages.items.size).toBe(2);
  });

  it('keeps a retry within one window to the message already written, and other mail apart', async () => {
    const clock = new TestClock('2026-11-22T12:00:00.000Z');
    const deps = { messages: memoryMessages(), clock, messageTtlSeconds: ttlSeconds };
    const first = await deliverOnce(received(clock.now()), 'sha256:abc', deps);
    clock.advance(60_000);
    expect(await deliverOnce(received(clock.now()), 'sha256:abc', deps)).toEqual({ messageId: first.messageId, outcome: 'exists' });
    expect((await deliverOnce(received(clock.now()), 'sha256:other', deps)).outcome).toBe('created');
  });
});
