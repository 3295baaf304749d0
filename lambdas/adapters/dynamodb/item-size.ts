/**
 * The size DynamoDB counts for an item, as its documentation defines it: attribute names and
 * strings in UTF-8 bytes, numbers by their digits, 3 bytes for each list or map plus 1 for each
 * element. dynalite counts string characters instead, so the store checks the limit itself to
 * behave as DynamoDB does.
 */
export const maxItemBytes = 400 * 1024;

export function itemBytes(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value !== undefined) size += Buffer.byteLength(name, 'utf8') + valueBytes(value);
  }
  return size;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace(/[.-]/g, '').length / 2) + 1;
  if (typeof value === 'boolean' || value === null) return 1;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueBytes(element), 0);
  if (value instanceof Set) return [...value].reduce((sum: number, element) => sum + valueBytes(element), 0);
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return 3 + entries.reduce((sum, [name, v]) => sum + 1 + Buffer.byteLength(name, 'utf8') + valueBytes(v), 0);
  }
  return 0;
}
