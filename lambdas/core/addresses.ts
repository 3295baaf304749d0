import { randomInt } from 'node:crypto';
import { PolicyViolation } from './errors';

/** The contract's local part: lowercase letters, digits, dots, underscores, hyphens; 1 to 64. */
export const localPartPattern = /^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$/;

/** RFC 5321: a forward path is at most 256 octets including the brackets, so 254 for the address. */
const maxAddressLength = 254;

/**
 * Role and system names nobody may reserve (RFC 2142 and common system mailboxes), compared
 * without their separators, so `no-reply`, `no_reply` and `no.reply` are all `noreply`.
 */
const reservedNames = new Set(
  [
    // RFC 2142
    'info', 'marketing', 'sales', 'support', 'abuse', 'noc', 'security', 'postmaster', 'hostmaster',
    'usenet', 'news', 'webmaster', 'www', 'uucp', 'ftp',
    // system and delivery mailboxes
    'admin', 'administrator', 'root', 'sysadmin', 'system', 'daemon', 'mailer-daemon', 'mailerdaemon',
    'nobody', 'noreply', 'no-reply', 'donotreply', 'do-not-reply', 'bounce', 'bounces', 'null', 'devnull',
    'operator', 'ssl-admin', 'ssladmin', 'ssladministrator', 'sslwebmaster', 'certadmin', 'it',
    'help', 'helpdesk', 'billing', 'privacy', 'legal', 'compliance', 'dmarc', 'mail', 'email', 'smtp',
    'imap', 'pop', 'pop3', 'list', 'list-request', 'majordomo', 'listserv', 'owner', 'tempmail',
  ].map(withoutSeparators),
);

function withoutSeparators(name: string): string {
  return name.replace(/[._-]/g, '');
}

/** True for a role or system name (contract: rejects reserved names). */
export function isReservedLocalPart(localPart: string): boolean {
  return reservedNames.has(withoutSeparators(localPart));
}

/**
 * Checks a requested local part against address policy beyond its syntax: reserved names, and
 * the dot rules of RFC 5322 that the contract's pattern alone lets through. 422 when violated.
 */
export function assertLocalPartAllowed(localPart: string): void {
  if (isReservedLocalPart(localPart)) {
    throw new PolicyViolation('This local part is a reserved name.', [{ field: 'local_part', reason: 'reserved_name' }]);
  }
  if (localPart.includes('..')) {
    throw new PolicyViolation('A local part cannot hold two dots in a row.', [
      { field: 'local_part', reason: 'invalid_address' },
    ]);
  }
}

/** The address of a local part on a domain, or 422 when it would exceed SMTP's path limit. */
export function composeAddress(localPart: string, domain: string): string {
  const address = `${localPart}@${domain}`;
  if (address.length > maxAddressLength) {
    throw new PolicyViolation(`The address would be longer than ${maxAddressLength} characters.`, [
      { field: 'local_part', reason: 'invalid_address' },
    ]);
  }
  return address;
}

const randomAlphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** 16 characters of 36: about 82 bits, so chosen local parts cannot collide in practice. */
const randomLength = 16;

/** A local part the service chooses: a letter, then random letters and digits. */
export function randomLocalPart(): string {
  let name: string;
  do {
    name = randomAlphabet[randomInt(26)]!;
    while (name.length < randomLength) name += randomAlphabet[randomInt(randomAlphabet.length)];
  } while (isReservedLocalPart(name));
  return name;
}
