/** A sender as name and address. */
export interface Sender {
  /** The display name, unquoted; `""` when there is none. */
  name: string;
  /** The address, lower-cased; `""` when none can be found. */
  address: string;
}

/**
 * Splits a message's `from` (the contract carries it as one display string, for example
 * `"Doe, Jane" <jane@example.com>`) into the display name and the address. The input is
 * hostile data: this only parses, it never trusts.
 *
 * @example
 * parseFrom('Example Shop <noreply@example.com>') // { name: 'Example Shop', address: 'noreply@example.com' }
 */
export function parseFrom(from: string): Sender {
  const text = from.trim();
  const angle = /^(.*?)\s*<([^<>\s]+@[^<>\s]+)>\s*$/s.exec(text);
  if (angle) return { name: unquote(angle[1]!), address: angle[2]!.toLowerCase() };
  const bare = /^([^\s<>"]+@[^\s<>"]+)(?:\s*\((.*)\))?$/.exec(text);
  if (bare) return { name: bare[2]?.trim() ?? '', address: bare[1]!.toLowerCase() };
  return { name: unquote(text), address: '' };
}

function unquote(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')) {
    return trimmed.slice(1, -1).replace(/\\(.)/g, '$1').trim();
  }
  return trimmed;
}
