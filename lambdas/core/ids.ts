import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** Resource kinds and their identifier prefixes (contract: `eml_`, `msg_`, `att_`; ours: `acc_`, `key_`). */
export type IdPrefix = 'eml' | 'msg' | 'att' | 'acc' | 'key';

/**
 * A new opaque identifier: the prefix, an underscore and 22 base64url characters of 16 random
 * bytes (DESIGN: id format). Matches the contract's `^eml_[A-Za-z0-9_-]{10,64}$` family.
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}

/**
 * The id of the message one delivered mail makes for one address in one delivery window: derived
 * from what stays the same when the same mail is delivered again (its identity), the address's
 * email id and the window, so that a repeated delivery (an SMTP retry after 451, a Lambda retry)
 * names the message already written instead of making a second one, while the same bytes
 * delivered after that message expired get an id of their own. Same shape as `newId('msg')`.
 */
export function deliveredMessageId(mailIdentity: string, emailId: string, window: number): string {
  return `msg_${createHash('sha256').update(`${mailIdentity}\n${emailId}\n${window}`, 'utf8').digest().subarray(0, 16).toString('base64url')}`;
}

/** A random token naming one attempt of a create, the holder of its idempotency record's lease. */
export function newLeaseToken(): string {
  return randomUUID();
}

/** A gateway-style request id (a UUID), as API Gateway puts in `requestContext.requestId`. */
export function newGatewayRequestId(): string {
  return randomUUID();
}

/**
 * An id as the AWS services the local stack stands in for make one (a UUID): a Lambda
 * invocation's request id, an EventBridge event's id, an S3 multipart upload's id.
 */
export function newAwsId(): string {
  return randomUUID();
}

/** A message id as SES gives a received mail (40 lowercase hex characters), which names its raw object. */
export function newSesMessageId(): string {
  return randomBytes(20).toString('hex');
}

/** The contract's request id for a gateway request id: `req_` + the gateway's id (DESIGN: request flow 5). */
export function requestIdFor(gatewayRequestId: string): string {
  return `req_${gatewayRequestId}`;
}

/** True for an identifier of the given kind: the prefix and 10 to 64 base64url characters (contract). */
export function isIdOf(prefix: IdPrefix, value: string): boolean {
  return new RegExp(`^${prefix}_[A-Za-z0-9_-]{10,64}$`).test(value);
}

/**
 * A received mail's id: its receipt time in milliseconds, a dash, 12 random base64url characters.
 * The time prefix lets the sweeper age the blobs of a mail whose messages were never written.
 */
export function newMailId(receivedAt: Date): string {
  return `${receivedAt.getTime()}-${randomBytes(9).toString('base64url')}`;
}

/** The receipt time of a mail id, or undefined when the id is not one. */
export function mailIdTime(mailId: string): number | undefined {
  const match = /^(\d{10,16})-[A-Za-z0-9_-]{12}$/.exec(mailId);
  return match ? Number(match[1]) : undefined;
}
