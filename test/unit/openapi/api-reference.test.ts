import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { apiReferenceStylesheetPath, openApiDocumentFile } from '../../../openapi/reference/api-reference';
import { markdownHtml } from '../../../openapi/reference/markdown-html';
import { renderApiReference, type OpenApiDocument } from '../../../openapi/reference/render-reference';
import { readReferencePage, referencePageHazards } from '../../support/reference-page';

const document = parse(readFileSync(openApiDocumentFile, 'utf8')) as OpenApiDocument;
const options = { stylesheetHref: apiReferenceStylesheetPath, documentHref: '/openapi.yaml' };

/** Strings that are markup, attribute breakouts, links or Markdown tricks if any of them is not escaped. */
const hostile = [
  '</code></p><script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' onmouseover='alert(1)' x='",
  '[click](javascript:alert(1)) <a href="https://evil.example">x</a>',
  '<style>body{display:none}</style><link rel=stylesheet href=https://evil.example/x.css>',
  '**<b>bold</b>** `</code><iframe src=https://evil.example>`',
];
const text = hostile.join(' ');

/** A copy of the document with a hostile string in every kind of place the page shows. */
function hostileDocument(): OpenApiDocument {
  const copy = structuredClone(document) as any;
  copy.info.title = text;
  copy.info.version = text;
  copy.info.summary = text;
  copy.info.description = `${text}\n\n- ${text}\n- ${text}`;
  copy.openapi = text;
  copy.jsonSchemaDialect = text;
  copy.servers = [{ url: 'javascript:alert(1)', description: text, variables: { [text]: { default: text, enum: [text], description: text } } }];
  copy.tags.unshift({ name: text, description: text });
  copy.components.securitySchemes.apiKey.description = text;
  copy.components.securitySchemes.apiKey.bearerFormat = text;
  copy.components.schemas[text] = { type: text, description: text, pattern: text, enum: [text, { [text]: text }], const: text, examples: [text], format: text, properties: { [text]: { $ref: `#/components/schemas/${text}` } }, required: [text] };
  copy.components.responses.NotFound.description = text;
  copy.components.headers['X-Request-Id'].description = text;
  copy.components.parameters.Limit.description = text;
  copy.components.parameters.Limit.example = text;
  copy.components.examples.EmailResponse.value = { data: text };
  copy.paths[text] = {
    get: {
      operationId: text,
      tags: [text],
      summary: text,
      description: text,
      security: [{ [text]: [] }],
      parameters: [{ name: text, in: text, required: true, description: text, schema: { type: 'string', default: text } }],
      requestBody: { description: text, content: { [text]: { schema: { $ref: `#/components/schemas/${text}` }, example: text } } },
      responses: {
        [text]: { description: text, headers: { [text]: { description: text, schema: { const: text } } }, content: { [text]: { schema: { type: 'object', properties: { error: { properties: { code: { const: text } } } } } } } },
        '404': { $ref: '#/components/responses/NotFound' },
      },
    },
  };
  return copy;
}

describe('the API reference renderer', () => {
  it('escapes every string of the document: nothing in it becomes an element, an attribute or a link', () => {
    const html = renderApiReference(hostileDocument(), options);
    const page = readReferencePage(html);
    expect(referencePageHazards(page, [options.stylesheetHref, options.documentHref])).toEqual([]);
    expect(page.elements.filter((element) => element.tagName === 'a' && !element.attrs.some((attr) => attr.name === 'href'))).toEqual([]);
    for (const tag of ['script', 'img', 'iframe', 'style', 'b']) expect(page.elements.some((element) => element.tagName === tag)).toBe(false);
    expect(page.elements.filter((element) => element.tagName === 'link')).toHaveLength(1);
    // The strings are shown as text, not dropped.
    for (const id of ['overview', 'authentication', 'errors', 'schemas']) {
      for (const string of hostile) expect(page.textOf(id)).toContain(string.replace(/\*\*|`/g, ''));
    }
    // Ids stay plain, so no string of the document can close an attribute through them.
    for (const element of page.elements) {
      const id = element.attrs.find((attr) => attr.name === 'id')?.value;
      if (id !== undefined) expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    }
  });

  it('keeps to the Markdown the descriptions use: paragraphs, lists, code and bold, everything else as text', () => {
    expect(markdownHtml('A **rule** with `a<b>`.\n\n- one\n  more\n- two [x](https://x.example)')).toBe(
      '<p>A <strong>rule</strong> with <code>a&lt;b&gt;</code>.</p>\n<ul><li>one more</li><li>two [x](https://x.example)</li></ul>',
    );
  });

  it('links to the document only where the host publishes it', () => {
    const { documentHref, ...withoutDocument } = options;
    const page = readReferencePage(renderApiReference(document, withoutDocument));
    expect(referencePageHazards(page, [options.stylesheetHref])).toEqual([]);
    expect(renderApiReference(document, withoutDocument)).toContain('<code>openapi/openapi.yaml</code>');
    expect(renderApiReference(document, options)).toContain(`href="${documentHref}"`);
  });
});
