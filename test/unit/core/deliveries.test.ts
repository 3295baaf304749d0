import { deliverOnce, planDeliveries, type UndeliveredMessage } from '../../../lambdas/core/deliveries';
import type { DeliveryReads } from '../../../lambdas/core/ports/delivery-reads';
import type { EmailRecord } from '../../../lambdas/core/ports/email-store';
import type { MessageRecord, MessageStore } from '../../../lambdas/core/ports/message-store';
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
    expiring: async () => ({ messages: [] }),
    deleteMany: async (messageIds) => messageIds.forEach((messageId) => items.delete(messageId)),
  };
}

/** The delivery reads over the same map, and one receiving domain. */
function memoryReads(messages: Map<string, MessageRecord>): DeliveryReads {
  return {
    read: async (keys) => ({
      domains: new Map((keys.domains ?? []).map((domain) => [domain, { domain, createEnabled: true, receiveEnabled: domain === 'example.com' }])),
      emailIds: new Map(),
      emails: new Map((keys.emailIds ?? []).flatMap((id) => (id === email.emailId ? [[id, email] as const] : []))),
      messages: new Map((keys.messageIds ?? []).flatMap((id) => (messages.has(id) ? [[id, messages.get(id)!] as const] : []))),
    }),
  };
}

const ttlSeconds = 900;

const email: EmailRecord = {
  emailId: 'eml_1234567890',
  accountId: 'acc_1',
  address: 'a@example.com',
  localPart: 'a',
  domain: 'example.com',
  createdAt: '2026-11-01T00:00:00.000Z',
  expiresAt: '2026-12-01T00:00:00.000Z',
};

function services(clock: TestClock) {
  const messages = memoryMessages();
  return { messages, deliveryReads: memoryReads(messages.items), clock, messageTtlSeconds: ttlSeconds };
}

/** Plans the delivery of one mail to one email, then writes it: what the ingest does. */
async function deliver(message: UndeliveredMessage, identity: string, deps: ReturnType<typeof services>) {
  const [planned] = await planDeliveries([email], identity, new Date(message.receivedAt), deps);
  return deliverOnce(message, planned!, deps);
}

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
    const deps = services(clock);
    const first = await deliver(received(clock.now()), 'sha256:abc', deps);
    expect(first.outcome).toBe('created');
    clock.advance(1);
    expect(await deliver(received(clock.now()), 'sha256:abc', deps)).toEqual({ messageId: first.messageId, outcome: 'exists' });
    // Until the first copy expires, at 12:29:59.999; from then on the same mail is a new message.
    clock.advance(15 * 60 * 1000 - 2);
    expect(await deliver(received(clock.now()), 'sha256:abc', deps)).toEqual({ messageId: first.messageId, outcome: 'exists' });
    clock.advance(1);
    const again = await deliver(received(clock.now()), 'sha256:abc', deps);
    expect(again.outcome).toBe('created');
    expect(again.messageId).not.toBe(first.messageId);
    expect(deps.messages.items.size).toBe(2);
  });

  it('keeps a retry within one window to the message already written, and other mail apart', async () => {
    const clock = new TestClock('2026-11-22T12:00:00.000Z');
    const deps = services(clock);
    const first = await deliver(received(clock.now()), 'sha256:abc', deps);
    clock.advance(60_000);
    expect(await deliver(received(clock.now()), 'sha256:abc', deps)).toEqual({ messageId: first.messageId, outcome: 'exists' });
    expect((await deliver(received(clock.now()), 'sha256:other', deps)).outcome).toBe('created');
  });

  it('plans nothing for a reservation that has ended or a domain that no longer receives', async () => {
    const clock = new TestClock('2026-11-22T12:00:00.000Z');
    const deps = services(clock);
    const ended = { ...email, emailId: 'eml_ended', expiresAt: '2026-11-22T11:59:59.999Z' };
    const closed = { ...email, emailId: 'eml_closed', domain: 'closed.example' };
    expect(await planDeliveries([ended, closed], 'sha256:abc', clock.now(), deps)).toEqual([]);
    expect(await planDeliveries([email], 'sha256:abc', clock.now(), deps)).toEqual([expect.objectContaining({ email, delivered: false })]);
  });

  it('reads the email of a recipient known only by id in the same request, and plans nothing for one not stored or ended', async () => {
    const clock = new TestClock('2026-11-22T12:00:00.000Z');
    const deps = services(clock);
    const byId = { emailId: email.emailId, domain: email.domain };
    expect(await planDeliveries([byId, { emailId: 'eml_absent', domain: email.domain }], 'sha256:abc', clock.now(), deps)).toEqual([
      expect.objectContaining({ email, delivered: false }),
    ]);
    clock.advance(Date.parse(email.expiresAt) - clock.now().getTime());
    expect(await planDeliveries([byId], 'sha256:abc', clock.now(), deps)).toEqual([]);
  });
});
