import { markdownHtml } from './markdown-html';
import { statusHtml, statusOrder, type MediaType, type OperationEntry, type Response } from './operation-html';
import { resolved, resolvePointer, table, valueHtml, type Schema } from './schema-html';

interface ErrorCode {
  code: string;
  status: string;
  description?: string;
  operations: OperationEntry[];
}

/** Every error code an operation's error body may carry (the `const` or `enum` of `error.code`), with its status. */
export function errorCodesHtml(document: unknown, operations: OperationEntry[]): string {
  const codes = new Map<string, ErrorCode>();
  for (const entry of operations) {
    for (const [status, reference] of Object.entries(entry.operation.responses ?? {})) {
      const response = resolved<Response>(document, reference);
      for (const code of codesOf(document, response.content?.['application/json'])) {
        const key = `${status} ${code}`;
        if (!codes.has(key)) codes.set(key, { code, status, description: response.description, operations: [] });
        codes.get(key)!.operations.push(entry);
      }
    }
  }
  const rows = [...codes.values()]
    .sort((a, b) => statusOrder(a.status, b.status) || a.code.localeCompare(b.code))
    .map(
      (error) =>
        `<tr><th scope="row">${valueHtml(error.code)}</th><td>${statusHtml(error.status)}</td><td>${markdownHtml(error.description)}</td><td>${
          error.operations.length === operations.length
            ? 'every operation'
            : error.operations.map((entry) => `<a href="#${entry.id}">${valueHtml(entry.operation.operationId ?? entry.path)}</a>`).join(', ')
        }</td></tr>`,
    );
  return `<section id="errors" aria-labelledby="errors-title"><h2 id="errors-title">Error codes</h2><p>The <code>error.code</code> of each error body, the status that carries it and the operations that may answer it.</p>${table(
    ['Code', 'Status', 'Meaning', 'Operations'],
    rows,
  )}</section>`;
}

function codesOf(document: unknown, media: MediaType | undefined): string[] {
  const follow = (schema: Schema | undefined): Schema | undefined =>
    schema?.$ref ? (resolvePointer(document, schema.$ref) as Schema | undefined) : schema;
  const code = follow(follow(follow(media?.schema)?.properties?.error)?.properties?.code);
  if (!code) return [];
  return [...(code.const !== undefined ? [code.const] : []), ...(Array.isArray(code.enum) ? code.enum : [])].map(String);
}
