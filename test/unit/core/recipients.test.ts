import type { DeliveryReads } from '../../../lambdas/core/ports/delivery-reads';
import type { EmailRecord, EmailStore } from '../../../lambdas/core/ports/email-store';
import { activeRecipients, domainMemoryMs, RecipientMemory, rememberedEmails } from '../../../lambdas/core/recipients';
import { TestClock } from '../../support/test-clock';

const emailOf = (n: number): EmailRecord => ({
  emailId: `eml_${n}`,
  accountId: 'acc_1',
  address: `a${n}@example.com`,
  localPart: `a${n}`,
  domain: 'example.com',
  createdAt: '2026-11-01T00:00:00.000Z',
  expiresAt: '2026-12-01T00:00:00.000Z',
});

/** Storage of every address `a<n>@example.com`, counting what it is asked. */
function storage() {
  const asked = { addresses: [] as string[], domains: [] as string[], emails: [] as string[] };
  const deliveryReads: DeliveryReads = {
    read: async (keys) => {
      asked.addresses.push(...(keys.addresses ?? []));
      asked.domains.push(...(keys.domains ?? []));
      return {
        domains: new Map((keys.domains ?? []).map((domain) => [domain, { domain, createEnabled: true, receiveEnabled: true }])),
        emailIds: new Map((keys.addresses ?? []).map((address) => [address, `eml_${address.slice(1, address.indexOf('@'))}`])),
        emails: new Map(),
        messages: new Map(),
      };
    },
  };
  const emails = {
    get: async (id: string) => {
      asked.emails.push(id);
      return emailOf(Number(id.slice(4)));
    },
  } as unknown as EmailStore;
  return { asked, deliveryReads, emails };
}

describe('RecipientMemory: what the intake keeps of its lookups', () => {
  it('reads an address once, and its domain again only after the window', async () => {
    const clock = new TestClock('2026-11-22T12:00:00.000Z');
    const { asked, ...stores } = storage();
    const deps = { ...stores, clock, recipientMemory: new RecipientMemory(clock) };
    expect(await activeRecipients(['A1@example.com'], deps)).toEqual([emailOf(1)]);
    expect(await activeRecipients(['a1@example.com'], deps)).toEqual([emailOf(1)]);
    expect(asked).toEqual({ addresses: ['a1@example.com'], domains: ['example.com'], emails: ['eml_1'] });
    clock.advance(domainMemoryMs);
    await activeRecipients(['a1@example.com'], deps);
    expect(asked.domains).toEqual(['example.com', 'example.com']);
    expect(asked.addresses).toEqual(['a1@example.com']);
  });

  it('refuses a remembered address once its reservation has ended', async () => {
    const clock = new TestClock('2026-11-22T12:00:00.000Z');
    const deps = { ...storage(), clock, recipientMemory: new RecipientMemory(clock) };
    await activeRecipients(['a1@example.com'], deps);
    clock.advance(Date.parse(emailOf(1).expiresAt) - clock.now().getTime());
    expect(await activeRecipients(['a1@example.com'], deps)).toEqual([]);
  });

  it(`keeps the ${rememberedEmails} addresses used last`, async () => {
    const clock = new TestClock('2026-11-22T12:00:00.000Z');
    const memory = new RecipientMemory(clock);
    for (let n = 0; n <= rememberedEmails; n++) {
      memory.rememberEmail(`a${n}@example.com`, emailOf(n));
      // The first address stays in use, so the second is the one to go.
      if (n === 1) memory.email('a0@example.com');
    }
    expect(memory.email('a0@example.com')).toEqual(emailOf(0));
    expect(memory.email('a1@example.com')).toBeUndefined();
    expect(memory.email(`a${rememberedEmails}@example.com`)).toEqual(emailOf(rememberedEmails));
  });
});
