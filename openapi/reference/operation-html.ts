import { STATUS_CODES } from 'node:http';
import { escapeHtml, inlineHtml, markdownHtml } from './markdown-html';
import { anchor, resolved, schemaHtml, table, valueHtml, type Schema } from './schema-html';

type Ref = { $ref: string };

export interface Parameter {
  name?: string;
  in?: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
  example?: unknown;
}

export interface Header {
  description?: string;
  required?: boolean;
  schema?: Schema;
}

export interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { summary?: string; value?: unknown } | Ref>;
}

export interface Response {
  description?: string;
  headers?: Record<string, Header | Ref>;
  content?: Record<string, MediaType>;
}

export interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: (Parameter | Ref)[];
  requestBody?: { required?: boolean; description?: string; content?: Record<string, MediaType> } | Ref;
  responses?: Record<string, Response | Ref>;
  security?: Record<string, string[]>[];
}

/** An operation as it appears in the document: its path, method and what it says. */
export interface OperationEntry {
  path: string;
  method: string;
  operation: Operation;
  /** The operation's anchor on the page. */
  id: string;
}

/** Statuses in numeric order (`2XX` and `default` after the numbers). */
export function statusOrder(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

/** A status with its reason phrase, as HTTP names it. */
export function statusHtml(status: string): string {
  const reason = STATUS_CODES[Number(status)];
  return `<span class="status">${escapeHtml(status)}</span>${reason ? ` ${escapeHtml(reason)}` : ''}`;
}

/**
 * One operation: method and path, summary, description, who may call it, its parameters, its
 * request body and every response it documents, each with its headers and body.
 */
export function operationHtml(document: unknown, entry: OperationEntry, security: string): string {
  const { operation } = entry;
  const parameters = (operation.parameters ?? []).map((parameter) => resolved<Parameter>(document, parameter));
  const body = operation.requestBody && resolved(document, operation.requestBody);
  const responses = Object.entries(operation.responses ?? {}).sort(([a], [b]) => statusOrder(a, b));
  return [
    `<section class="operation" id="${entry.id}" aria-labelledby="${entry.id}-title">`,
    `<h3 id="${entry.id}-title"><span class="method">${escapeHtml(entry.method.toUpperCase())}</span> <code>${escapeHtml(entry.path)}</code></h3>`,
    operation.summary ? `<p class="summary">${inlineHtml(operation.summary)}</p>` : '',
    `<p class="meta">Operation ${valueHtml(operation.operationId ?? '')} · ${security}</p>`,
    markdownHtml(operation.description),
    parameters.length ? `<h4>Parameters</h4>${parametersHtml(document, parameters)}` : '',
    body
      ? `<h4>Request body</h4><p>${body.required ? 'Required.' : 'Optional.'}</p>${markdownHtml(body.description)}${contentHtml(document, body.content)}`
      : '',
    `<h4>Responses</h4>`,
    responses.map(([status, response]) => responseHtml(document, `${entry.id}-${anchor('status', status)}`, status, response)).join('\n'),
    `</section>`,
  ].join('\n');
}

function parametersHtml(document: unknown, parameters: Parameter[]): string {
  const rows = parameters.map(
    (parameter) =>
      `<tr><th scope="row"><code>${escapeHtml(parameter.name ?? '')}</code></th><td>${escapeHtml(parameter.in ?? '')}</td><td>${parameter.required ? 'yes' : 'no'}</td>` +
      `<td>${markdownHtml(parameter.description)}${schemaHtml(document, parameter.schema)}${parameter.example !== undefined ? `<p>Example: ${valueHtml(parameter.example)}</p>` : ''}</td></tr>`,
  );
  return table(['Name', 'In', 'Required', 'Description and schema'], rows);
}

/** A response in a disclosure: open for a success, closed for the errors (the page stays readable without a script). */
function responseHtml(document: unknown, id: string, status: string, reference: Response | Ref): string {
  const response = resolved<Response>(document, reference);
  const shared = '$ref' in reference ? ` <span class="shared">(shared: ${valueHtml(reference.$ref.split('/').pop())})</span>` : '';
  const headers = Object.entries(response.headers ?? {}).map(([name, header]) => [name, resolved<Header>(document, header)] as const);
  const rows = headers.map(
    ([name, header]) =>
      `<tr><th scope="row"><code>${escapeHtml(name)}</code></th><td>${header.required ? 'yes' : 'no'}</td><td>${markdownHtml(header.description)}${schemaHtml(document, header.schema)}</td></tr>`,
  );
  return [
    `<details class="response" id="${id}"${status.startsWith('2') ? ' open' : ''}>`,
    `<summary>${statusHtml(status)}${shared}</summary>`,
    markdownHtml(response.description),
    rows.length ? `<h5>Headers</h5>${table(['Header', 'Required', 'Description and schema'], rows)}` : '',
    response.content ? `<h5>Body</h5>${contentHtml(document, response.content)}` : '<p>No body.</p>',
    `</details>`,
  ].join('\n');
}

function contentHtml(document: unknown, content: Record<string, MediaType> | undefined): string {
  return Object.entries(content ?? {})
    .map(([type, media]) => `<div class="media"><p>Media type ${valueHtml(type)}</p>${schemaHtml(document, media.schema)}${examplesHtml(document, media)}</div>`)
    .join('\n');
}

function examplesHtml(document: unknown, media: MediaType): string {
  const examples = Object.entries(media.examples ?? {}).map(([name, example]) => {
    const { summary, value } = resolved<{ summary?: string; value?: unknown }>(document, example);
    return exampleHtml(summary ?? name, value);
  });
  if (media.example !== undefined) examples.push(exampleHtml('Example', media.example));
  return examples.join('');
}

function exampleHtml(label: string, value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2) ?? '';
  return `<figure class="example"><figcaption>${inlineHtml(label)}</figcaption><pre><code>${escapeHtml(text)}</code></pre></figure>`;
}
