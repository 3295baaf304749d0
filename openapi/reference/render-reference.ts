import { escapeHtml, inlineHtml, markdownHtml } from './markdown-html';
import { errorCodesHtml } from './error-codes-html';
import { operationHtml, type Operation, type OperationEntry } from './operation-html';
import { anchor, resolved, schemaHtml, table, valueHtml, type Schema } from './schema-html';

type Ref = { $ref: string };

interface SecurityScheme {
  type?: string;
  scheme?: string;
  bearerFormat?: string;
  name?: string;
  in?: string;
  description?: string;
}

interface Server {
  url?: string;
  description?: string;
  variables?: Record<string, { default?: string; enum?: string[]; description?: string }>;
}

/** The parts of an OpenAPI 3.x document the reference shows. */
export interface OpenApiDocument {
  openapi?: string;
  jsonSchemaDialect?: string;
  info?: { title?: string; version?: string; summary?: string; description?: string };
  servers?: Server[];
  security?: Record<string, string[]>[];
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, SecurityScheme | Ref> };
}

export interface ReferenceOptions {
  /** The page's stylesheet (same origin: the page's CSP allows no other). */
  stylesheetHref: string;
  /** Where the document itself is published beside the page, if it is. */
  documentHref?: string;
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The API reference as one static HTML page, built from the OpenAPI document: no script, one
 * stylesheet, every string of the document escaped. Operations are grouped by their first tag,
 * components' schemas are linked where they are named, and the error codes are gathered from
 * the error bodies each status carries.
 */
export function renderApiReference(document: OpenApiDocument, options: ReferenceOptions): string {
  const operations = operationsOf(document);
  const groups = groupsOf(document, operations);
  const title = document.info?.title ?? 'API';
  const body = [
    `<header><h1>${escapeHtml(title)} reference</h1>`,
    `<p>Version ${valueHtml(document.info?.version ?? '')}${document.info?.summary ? `. ${inlineHtml(document.info.summary)}` : ''}</p>`,
    options.documentHref
      ? `<p>Generated from <a href="${escapeHtml(options.documentHref)}">the OpenAPI document</a> (OpenAPI ${escapeHtml(document.openapi ?? '')}, YAML), the machine-readable form of this page.</p>`
      : `<p>Generated from the OpenAPI document (OpenAPI ${escapeHtml(document.openapi ?? '')}), <code>openapi/openapi.yaml</code> in the service's source.</p>`,
    `</header>`,
    navHtml(groups),
    `<main id="main">`,
    `<section id="overview" aria-labelledby="overview-title"><h2 id="overview-title">Overview</h2>${markdownHtml(document.info?.description)}${serversHtml(document)}</section>`,
    authenticationHtml(document),
    ...groups.map((group) => groupHtml(document, group)),
    errorCodesHtml(document, operations),
    schemasHtml(document),
    `</main>`,
  ];
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)} reference</title>`,
    `<link rel="stylesheet" href="${escapeHtml(options.stylesheetHref)}">`,
    '</head>',
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function operationsOf(document: OpenApiDocument): OperationEntry[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    methods
      .filter((method) => item[method])
      .map((method) => {
        const operation = item[method]!;
        return { path, method, operation, id: anchor('op', operation.operationId ?? `${method}${path}`) };
      }),
  );
}

interface Group {
  name: string;
  description?: string;
  operations: OperationEntry[];
}

/** One group per tag, in the document's order of tags; an operation sits under its first tag. */
function groupsOf(document: OpenApiDocument, operations: OperationEntry[]): Group[] {
  const groups: Group[] = (document.tags ?? []).map((tag) => ({ name: tag.name, description: tag.description, operations: [] }));
  for (const entry of operations) {
    const tag = entry.operation.tags?.[0] ?? 'Other';
    let group = groups.find((candidate) => candidate.name === tag);
    if (!group) groups.push((group = { name: tag, operations: [] }));
    group.operations.push(entry);
  }
  return groups.filter((group) => group.operations.length);
}

function navHtml(groups: Group[]): string {
  const items = groups.map(
    (group) =>
      `<li><a href="#${anchor('tag', group.name)}">${escapeHtml(group.name)}</a><ol>${group.operations
        .map((entry) => `<li><a href="#${entry.id}"><span class="method">${escapeHtml(entry.method.toUpperCase())}</span> <code>${escapeHtml(entry.path)}</code></a></li>`)
        .join('')}</ol></li>`,
  );
  return [
    '<nav aria-label="Contents"><h2>Contents</h2><ol>',
    '<li><a href="#overview">Overview</a></li><li><a href="#authentication">Authentication</a></li>',
    ...items,
    '<li><a href="#errors">Error codes</a></li><li><a href="#schemas">Schemas</a></li>',
    '</ol></nav>',
  ].join('\n');
}

function serversHtml(document: OpenApiDocument): string {
  const servers = (document.servers ?? []).map((server) => {
    const variables = Object.entries(server.variables ?? {}).map(
      ([name, variable]) =>
        `<tr><th scope="row"><code>${escapeHtml(name)}</code></th><td>${valueHtml(variable.default ?? '')}</td><td>${(variable.enum ?? []).map(valueHtml).join(', ')}</td><td>${markdownHtml(variable.description)}</td></tr>`,
    );
    return `<li>${valueHtml(server.url ?? '')}${markdownHtml(server.description)}${variables.length ? table(['Variable', 'Default', 'Values', 'Description'], variables) : ''}</li>`;
  });
  const dialect = document.jsonSchemaDialect ? `<p>Schemas are JSON Schema, dialect ${valueHtml(document.jsonSchemaDialect)}.</p>` : '';
  return `<h3>Servers</h3><p>Every path below is relative to the server's URL.</p><ul>${servers.join('')}</ul>${dialect}`;
}

function authenticationHtml(document: OpenApiDocument): string {
  const global = new Set((document.security ?? []).flatMap((requirement) => Object.keys(requirement)));
  const schemes = Object.entries(document.components?.securitySchemes ?? {}).map(([name, reference]) => {
    const scheme = resolved<SecurityScheme>(document, reference);
    const facts: [string, unknown][] = [
      ['Type', scheme.type],
      ['Scheme', scheme.scheme],
      ['Format', scheme.bearerFormat],
      ['Name', scheme.name],
      ['In', scheme.in],
    ];
    const listed = facts.filter(([, value]) => value !== undefined).map(([label, value]) => `<dt>${label}</dt><dd>${valueHtml(value)}</dd>`);
    return `<h3 id="${anchor('security', name)}"><code>${escapeHtml(name)}</code></h3><dl>${listed.join('')}</dl>${markdownHtml(scheme.description)}${
      global.has(name) ? '<p>Every operation requires it unless the operation says otherwise.</p>' : ''
    }`;
  });
  return `<section id="authentication" aria-labelledby="authentication-title"><h2 id="authentication-title">Authentication</h2>${schemes.join('')}</section>`;
}

/** Who may call an operation: its own security requirements, or the document's. */
function securityOf(document: OpenApiDocument, operation: Operation): string {
  const requirements = operation.security ?? document.security ?? [];
  const names = requirements.flatMap((requirement) => Object.keys(requirement));
  if (!names.length) return 'No authentication';
  const schemes = document.components?.securitySchemes ?? {};
  const link = (name: string) => (Object.hasOwn(schemes, name) ? `<a href="#${anchor('security', name)}">${valueHtml(name)}</a>` : valueHtml(name));
  return `Authentication: ${names.map(link).join(' or ')}`;
}

function groupHtml(document: OpenApiDocument, group: Group): string {
  const id = anchor('tag', group.name);
  return [
    `<section id="${id}" aria-labelledby="${id}-title"><h2 id="${id}-title">${escapeHtml(group.name)}</h2>${markdownHtml(group.description)}`,
    ...group.operations.map((entry) => operationHtml(document, entry, securityOf(document, entry.operation))),
    '</section>',
  ].join('\n');
}

function schemasHtml(document: OpenApiDocument): string {
  const entries = Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => {
    const id = anchor('schema', name);
    return `<section id="${id}" aria-labelledby="${id}-title" class="component"><h3 id="${id}-title"><code>${escapeHtml(name)}</code></h3>${schemaHtml(document, schema)}</section>`;
  });
  return `<section id="schemas" aria-labelledby="schemas-title"><h2 id="schemas-title">Schemas</h2>${entries.join('\n')}</section>`;
}
