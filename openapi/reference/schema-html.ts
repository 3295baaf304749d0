import { escapeHtml, markdownHtml } from './markdown-html';

/** The JSON Schema keywords the reference shows (OpenAPI 3.1, and 3.0's `nullable`). */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  nullable?: boolean;
  contentMediaType?: string;
  examples?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
}

const schemaPrefix = '#/components/schemas/';

/** The page's anchor of a component or an operation: the name, reduced to characters an id keeps as they are. */
export function anchor(kind: string, name: string): string {
  return `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** What `$ref` names, followed through the document (a JSON pointer, `#/…`); undefined when it names nothing there. */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const token of ref.slice(2).split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** An object of the document, or the object its `$ref` names (parameters, headers, responses, examples). */
export function resolved<T extends object>(document: unknown, value: T | { $ref: string }): T {
  if ('$ref' in value && typeof value.$ref === 'string') return (resolvePointer(document, value.$ref) ?? {}) as T;
  return value as T;
}

/** A value of the document as code: a string as it is, anything else as JSON. */
export function valueHtml(value: unknown): string {
  return `<code>${escapeHtml(typeof value === 'string' ? value : JSON.stringify(value) ?? String(value))}</code>`;
}

/**
 * A schema as HTML: a component it names is a link to that component's entry on the page; an
 * inline schema shows its type, constraints, description and, for objects, a row per property.
 */
export function schemaHtml(document: unknown, schema: Schema | undefined): string {
  if (!schema || typeof schema !== 'object') return '';
  const facts = [typeHtml(document, schema), ...constraints(schema)].filter(Boolean);
  const parts = [facts.length ? `<p class="facts">${facts.join(' · ')}</p>` : '', markdownHtml(schema.description)];
  for (const [keyword, label] of [['oneOf', 'Exactly one of'], ['anyOf', 'Any of'], ['allOf', 'All of']] as const) {
    const options = schema[keyword];
    if (Array.isArray(options)) parts.push(`<p>${label}:</p><ul class="variants">${options.map((option) => `<li>${schemaHtml(document, option)}</li>`).join('')}</ul>`);
  }
  if (schema.properties) parts.push(propertiesHtml(document, schema.properties, schema.required ?? []));
  else if (schema.required?.length) parts.push(`<p>Required: ${schema.required.map(valueHtml).join(', ')}.</p>`);
  if (schema.items) parts.push(`<div class="items"><p>Each item:</p>${schemaHtml(document, schema.items)}</div>`);
  return `<div class="schema">${parts.filter(Boolean).join('')}</div>`;
}

function propertiesHtml(document: unknown, properties: Record<string, Schema>, required: string[]): string {
  const rows = Object.entries(properties).map(
    ([name, property]) =>
      `<tr><th scope="row"><code>${escapeHtml(name)}</code>${required.includes(name) ? ' <span class="required">required</span>' : ''}</th><td>${schemaHtml(document, property)}</td></tr>`,
  );
  return table(['Property', 'Schema'], rows);
}

/** A table with a header row; the rows are built already. */
export function table(headings: string[], rows: string[]): string {
  return `<table><thead><tr>${headings.map((heading) => `<th scope="col">${escapeHtml(heading)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The type: a link for a component, the type name(s) otherwise (`null` among them read as nullable). */
function typeHtml(document: unknown, schema: Schema): string {
  if (typeof schema.$ref === 'string') {
    if (!schema.$ref.startsWith(schemaPrefix) || resolvePointer(document, schema.$ref) === undefined) return valueHtml(schema.$ref);
    const name = schema.$ref.slice(schemaPrefix.length);
    return `<a href="#${anchor('schema', name)}"><code>${escapeHtml(name)}</code></a>`;
  }
  const types = schema.type === undefined ? [] : ([] as string[]).concat(schema.type);
  if (schema.nullable) types.push('null');
  return types.map((type) => `<code>${escapeHtml(String(type))}</code>`).join(' or ');
}

function constraints(schema: Schema): string[] {
  const facts: string[] = [];
  if (schema.format !== undefined) facts.push(`format ${valueHtml(schema.format)}`);
  if (schema.const !== undefined) facts.push(`always ${valueHtml(schema.const)}`);
  if (Array.isArray(schema.enum)) facts.push(`one of ${schema.enum.map(valueHtml).join(', ')}`);
  if (schema.pattern !== undefined) facts.push(`pattern ${valueHtml(schema.pattern)}`);
  facts.push(...range(schema.minLength, schema.maxLength, 'characters'), ...range(schema.minimum, schema.maximum, ''), ...range(schema.minItems, schema.maxItems, 'items'));
  if (schema.default !== undefined) facts.push(`default ${valueHtml(schema.default)}`);
  if (schema.contentMediaType !== undefined) facts.push(`media type ${valueHtml(schema.contentMediaType)}`);
  if (schema.additionalProperties === false) facts.push('no other properties');
  if (Array.isArray(schema.examples)) facts.push(`example ${schema.examples.map(valueHtml).join(', ')}`);
  return facts;
}

function range(min: number | undefined, max: number | undefined, unit: string): string[] {
  const of = unit ? ` ${unit}` : '';
  if (min !== undefined && max !== undefined) return [`${escapeHtml(String(min))} to ${escapeHtml(String(max))}${of}`];
  if (min !== undefined) return [`at least ${escapeHtml(String(min))}${of}`];
  if (max !== undefined) return [`at most ${escapeHtml(String(max))}${of}`];
  return [];
}
