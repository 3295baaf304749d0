import { assertLocalPartAllowed, composeAddress, randomLocalPart } from './addresses';
import type { Clock } from './ports/clock';
import { Conflict, NotFound, PolicyViolation, ServiceError, Unavailable } from './errors';
import {
  idempotencyLeaseMs,
  idempotencyLifetimeMs,
  idempotencyRecordKey,
  isRecordedRefusal,
  refusalError,
  requestHash,
  toRefusal,
} from './idempotency';
import { newId, newLeaseToken } from './ids';
import type { DomainStore } from './ports/domain-store';
import type { AddressRegistry } from './ports/address-registry';
import type { EmailRecord, EmailStore } from './ports/email-store';
import type { IdempotencyRecord, IdempotencyStore } from './ports/idempotency-store';

/** The contract's Email resource. */
export interface EmailResource {
  id: string;
  address: string;
  local_part: string;
  domain: string;
  status: 'active' | 'expired';
  created_at: string;
  expires_at: string;
}

export interface EmailDeps {
  emails: EmailStore;
  registry: AddressRegistry;
  idempotency: IdempotencyStore;
  domains: DomainStore;
  clock: Clock;
  /** Reservation lifetime: 30 days (a local override may shorten it). */
  emailTtlSeconds: number;
  /** How long a request waits for a concurrent one with the same key before answering 503, on `clock`. */
  concurrentWaitMs?: number;
}

export interface CreateEmailRequest {
  accountId: string;
  idempotencyKey: string;
  /** Normalized: lower case. */
  localPart?: string;
  /** Normalized: lower case, no trailing dot. */
  domain?: string;
}

const pollIntervalMs = 25;
/** A chosen local part that collides is chosen anew this many times. */
const chosenAddressAttempts = 3;

/**
 * Reserves a new address for 30 days (contract: POST /v1/emails). The same Idempotency-Key with
 * an equivalent request replays the original email; with another request it is 409. Every step
 * is a single-item conditional write, ordered so that a crash at any point is safe to retry with
 * the same key: the email id and address are planned once, in the idempotency record. A create
 * refused after its record was written (409, 422) keeps its refusal there, so every duplicate of
 * it is answered the same, charged like the first.
 */
export async function createEmail(
  request: CreateEmailRequest,
  deps: EmailDeps,
): Promise<{ email: EmailRecord; replayed: boolean }> {
  const now = deps.clock.now().getTime();
  const recordKey = createRecordKey(request);
  const hash = createRequestHash(request);
  const lease = { token: newLeaseToken(), until: now + idempotencyLeaseMs };
  if (request.localPart !== undefined) assertLocalPartAllowed(request.localPart);
  const domain = request.domain ?? (await defaultDomain(deps.domains));
  const localPart = request.localPart ?? randomLocalPart();
  const planned: IdempotencyRecord = {
    recordKey,
    requestHash: hash,
    status: 'in_progress',
    emailId: newId('eml'),
    address: composeAddress(localPart, domain),
    localPart,
    domain,
    leaseUntil: lease.until,
    leaseToken: lease.token,
    expiresAt: now + idempotencyLifetimeMs,
  };

  const begun = await deps.idempotency.begin(planned, now);
  let record = planned;
  if (begun.outcome === 'exists') {
    const settled = await awaitExisting(begun.record, hash, deps, lease);
    if ('replay' in settled) return { email: settled.replay, replayed: true };
    if ('refused' in settled) throw settled.refused;
    record = settled.resume;
  }

  try {
    const email = await fulfil(record, request, lease.token, deps);
    await deps.idempotency.complete(recordKey);
    return { email, replayed: false };
  } catch (error) {
    await giveBack(recordKey, lease.token, error, deps);
    throw error;
  }
}

/**
 * The original email of an exact replay, found without creating or charging anything (contract:
 * idempotency rule 2, an exact replay is not charged). Waits like a duplicate while the first
 * attempt is in flight. Undefined when the answer would be charged: no record, another request
 * under the key, a recorded refusal, or an attempt that died and would have to be resumed.
 */
export async function findReplay(request: CreateEmailRequest, deps: EmailDeps): Promise<EmailRecord | undefined> {
  const existing = await deps.idempotency.get(createRecordKey(request));
  if (!existing || existing.expiresAt <= deps.clock.now().getTime()) return undefined;
  const settled = await awaitExisting(existing, createRequestHash(request), deps);
  return 'replay' in settled ? settled.replay : undefined;
}

/** Reads an email the account owns and that has not expired (contract: GET /v1/emails/{id}). */
export async function getEmail(accountId: string, emailId: string, deps: { emails: EmailStore; clock: Clock }) {
  const email = await deps.emails.get(emailId);
  if (!email || email.accountId !== accountId || !isActive(email, deps.clock.now())) throw new NotFound();
  return email;
}

/** The Email resource of a record at a moment. */
export function toEmailResource(email: EmailRecord, now: Date): EmailResource {
  return {
    id: email.emailId,
    address: email.address,
    local_part: email.localPart,
    domain: email.domain,
    status: isActive(email, now) ? 'active' : 'expired',
    created_at: email.createdAt,
    expires_at: email.expiresAt,
  };
}

/** An address receives until its reservation's `expires_at`, and never again after. */
export function isActive(email: Pick<EmailRecord, 'expiresAt'>, now: Date): boolean {
  return now.getTime() < Date.parse(email.expiresAt);
}

/** The first domain, by name, open for creation and receiving. */
async function defaultDomain(domains: DomainStore): Promise<string> {
  const open = (await domains.list()).filter((domain) => domain.createEnabled && domain.receiveEnabled);
  const first = open.map((domain) => domain.domain).sort()[0];
  if (!first) throw new Unavailable(60);
  return first;
}

type Settled = { replay: EmailRecord } | { refused: ServiceError } | { resume: IdempotencyRecord } | { abandoned: true };

/**
 * What to do about a record another attempt made: replay it when completed, refuse it for
 * another request or as it was refused, take it over when its attempt died (given a lease of our
 * own; without one it is `abandoned`), or wait while it is in flight. Still in flight at the end
 * of the wait: 503, with `Retry-After` at the end of the other attempt's lease. The wait is a
 * budget of the clock's sleeps, each polling once: on the system clock it lasts at least that
 * long; on a test's clock it is the test's to decide, and no two waiting requests eat each
 * other's budget by moving a clock they share.
 */
async function awaitExisting(
  existing: IdempotencyRecord,
  hash: string,
  deps: EmailDeps,
  lease: { token: string; until: number },
): Promise<Exclude<Settled, { abandoned: true }>>;
async function awaitExisting(existing: IdempotencyRecord, hash: string, deps: EmailDeps): Promise<Settled>;
async function awaitExisting(
  existing: IdempotencyRecord,
  hash: string,
  deps: EmailDeps,
  lease?: { token: string; until: number },
): Promise<Settled> {
  const budgetMs = deps.concurrentWaitMs ?? 3000;
  let record: IdempotencyRecord | undefined = existing;
  for (let waitedMs = 0; ; waitedMs += pollIntervalMs) {
    if (!record) throw new Unavailable(1);
    if (record.requestHash !== hash) {
      return { refused: new Conflict('idempotency_key_reused', 'This Idempotency-Key was used with a different request.') };
    }
    if (record.status === 'refused') {
      if (!record.refusal) throw new Error(`refused idempotency record without its refusal ${record.recordKey}`);
      return { refused: refusalError(record.refusal) };
    }
    if (record.status === 'completed') {
      const email = await deps.emails.get(record.emailId);
      if (!email) throw new Error(`completed idempotency record without its email ${record.emailId}`);
      return { replay: email };
    }
    const now = deps.clock.now().getTime();
    if (record.leaseUntil <= now) {
      if (!lease) return { abandoned: true };
      if (await deps.idempotency.takeOver(record.recordKey, lease, now)) {
        return { resume: { ...record, leaseToken: lease.token, leaseUntil: lease.until } };
      }
    }
    if (waitedMs >= budgetMs) throw new Unavailable(secondsUntil(record.leaseUntil, now));
    await deps.clock.sleep(pollIntervalMs);
    record = await deps.idempotency.get(record.recordKey);
  }
}

/** Whole seconds from `now` until `until`, at least 1 (contract: `Retry-After`). */
function secondsUntil(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}

/** Where the record of a create lives: the account, the operation and the client's key. */
function createRecordKey(request: CreateEmailRequest): string {
  return idempotencyRecordKey(request.accountId, 'createEmail', request.idempotencyKey);
}

/** Equivalent creates hash alike: the normalized local part and domain, as the client gave them. */
function createRequestHash(request: CreateEmailRequest): string {
  return requestHash({ local_part: request.localPart, domain: request.domain });
}

/** The writes of a create, each safe to repeat: claim the address, then store the email. */
async function fulfil(
  record: IdempotencyRecord,
  request: CreateEmailRequest,
  leaseToken: string,
  deps: EmailDeps,
): Promise<EmailRecord> {
  await assertDomainOpen(record.domain, deps.domains);
  let { address, localPart } = record;

  for (let attempt = 1; ; attempt++) {
    const claim = await deps.registry.claim({
      address,
      emailId: record.emailId,
      accountId: request.accountId,
      claimedAt: deps.clock.now().toISOString(),
    });
    if (claim.outcome === 'claimed') break;
    if (request.localPart !== undefined || attempt >= chosenAddressAttempts) {
      throw new Conflict('address_unavailable', 'This address has already been issued.');
    }
    localPart = randomLocalPart();
    address = composeAddress(localPart, record.domain);
    await deps.idempotency.replan(record.recordKey, leaseToken, { address, localPart });
  }

  const now = deps.clock.now();
  const email: EmailRecord = {
    emailId: record.emailId,
    accountId: request.accountId,
    address,
    localPart,
    domain: record.domain,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + deps.emailTtlSeconds * 1000).toISOString(),
  };
  if ((await deps.emails.create(email)) === 'created') return email;
  const stored = await deps.emails.get(email.emailId);
  if (!stored) throw new Error(`email ${email.emailId} reported as existing but not found`);
  return stored;
}

async function assertDomainOpen(name: string, domains: DomainStore): Promise<void> {
  const domain = await domains.get(name);
  if (!domain || !domain.createEnabled || !domain.receiveEnabled) {
    throw new PolicyViolation('Addresses cannot be created on this domain.', [
      { field: 'domain', reason: 'domain_not_allowed' },
    ]);
  }
}

/**
 * After a failed attempt: a refusal is kept as the answer to every duplicate of the request (it
 * created nothing, so another request may still take the key); any other failure only gives up
 * the lease, so a retry resumes the same plan at once.
 */
async function giveBack(recordKey: string, leaseToken: string, error: unknown, deps: EmailDeps): Promise<void> {
  try {
    if (isRecordedRefusal(error)) await deps.idempotency.refuse(recordKey, leaseToken, toRefusal(error));
    else await deps.idempotency.release(recordKey, leaseToken);
  } catch {
    // The lease runs out by itself; the original error is the answer.
  }
}
