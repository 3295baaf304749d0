import { createEmail, type EmailDeps } from '../../../lambdas/core/emails';
import { Unavailable } from '../../../lambdas/core/errors';
import { idempotencyLeaseMs, requestHash } from '../../../lambdas/core/idempotency';
import type { EmailRecord } from '../../../lambdas/core/ports/email-store';
import type { IdempotencyRecord } from '../../../lambdas/core/ports/idempotency-store';
import { TestClock } from '../../support/test-clock';

const request = { accountId: 'acc_1', idempotencyKey: 'unit-wait-key-0001', localPart: 'waiting', domain: 'example.test' };

/**
 * A create whose key another attempt holds, in flight (`polls` answers of the store, then the
 * last one for good), on a clock whose sleeps move it and return at once: a wait that used the
 * machine's time instead would sleep for real and never move this clock.
 */
function inFlight(answers: ('in_progress' | 'completed')[]) {
  const clock = new TestClock();
  const slept: number[] = [];
  clock.sleep = async (ms) => {
    slept.push(ms);
    clock.advance(ms);
  };
  const start = clock.now().getTime();
  const other: IdempotencyRecord = {
    recordKey: 'the-key',
    requestHash: requestHash({ local_part: request.localPart, domain: request.domain }),
    status: 'in_progress',
    emailId: 'eml_TheOtherAttempt0001',
    address: 'waiting@example.test',
    localPart: 'waiting',
    domain: 'example.test',
    leaseUntil: start + idempotencyLeaseMs,
    leaseToken: 'the-other-attempt',
    expiresAt: start + 86_400_000,
  };
  const email: EmailRecord = {
    emailId: other.emailId,
    accountId: request.accountId,
    address: other.address,
    localPart: other.localPart,
    domain: other.domain,
    createdAt: new Date(start).toISOString(),
    expiresAt: new Date(start + 30 * 86_400_000).toISOString(),
  };
  let polls = 0;
  const deps = {
    clock,
    emailTtlSeconds: 2_592_000,
    idempotency: {
      begin: async () => ({ outcome: 'exists', record: other }),
      get: async () => ({ ...other, status: answers[Math.min(polls++, answers.length - 1)] }),
      takeOver: async () => false,
    },
    emails: { get: async (id: string) => (id === email.emailId ? email : undefined) },
  } as unknown as EmailDeps;
  return { deps, clock, slept, start, email, polls: () => polls };
}

describe('createEmail waiting on a concurrent attempt with its key', () => {
  it('waits its 3 seconds on the injected clock, polling every 25 ms, then answers 503 until the other lease ends', async () => {
    const { deps, clock, slept, start } = inFlight(['in_progress']);
    const refused = await createEmail(request, deps).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Unavailable);
    expect(slept).toEqual(Array(120).fill(25));
    expect(clock.now().getTime() - start).toBe(3000);
    expect((refused as Unavailable).retryAfterSeconds).toBe(idempotencyLeaseMs / 1000 - 3);
  });

  it('replays the email once the other attempt completes, having waited only until then', async () => {
    const { deps, clock, slept, start, email } = inFlight(['in_progress', 'in_progress', 'completed']);
    expect(await createEmail(request, deps)).toEqual({ email, replayed: true });
    expect(slept).toEqual([25, 25, 25]);
    expect(clock.now().getTime() - start).toBe(75);
  });

  it('waits as long as the deps say', async () => {
    const { deps, slept } = inFlight(['in_progress']);
    await expect(createEmail(request, { ...deps, concurrentWaitMs: 100 })).rejects.toBeInstanceOf(Unavailable);
    expect(slept).toEqual([25, 25, 25, 25]);
  });
});
