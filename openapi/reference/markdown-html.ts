/**
 * HTML from the text of an OpenAPI document. Every string of the document is escaped here
 * before it reaches the page: the reference has no script to protect, but a description must
 * never become markup, a link or an attribute of the page.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => htmlEntities[character]!);
}

const htmlEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * The part of CommonMark the document's descriptions use: paragraphs, `- ` lists, `code` and
 * **bold**. Anything else (links, HTML, images) stays text, escaped: the page links nowhere the
 * document chooses.
 */
export function markdownHtml(markdown: string | undefined): string {
  if (!markdown?.trim()) return '';
  return blocks(markdown)
    .map((block) => (block.list ? `<ul>${block.lines.map((item) => `<li>${inlineHtml(item)}</li>`).join('')}</ul>` : `<p>${inlineHtml(block.lines.join(' '))}</p>`))
    .join('\n');
}

/** One line of Markdown as inline HTML: code spans first (their content is literal), then bold. */
export function inlineHtml(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part) => (part.length > 2 && part.startsWith('`') && part.endsWith('`') ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : escapeHtml(part).replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>')))
    .join('');
}

interface Block {
  list: boolean;
  lines: string[];
}

/** Paragraphs split at blank lines; a run of `- ` items is one list, an indented line continues its item. */
function blocks(markdown: string): Block[] {
  const result: Block[] = [];
  let current: Block | undefined;
  for (const raw of markdown.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) {
      current = undefined;
    } else if (/^[-*] /.test(line)) {
      if (!current?.list) result.push((current = { list: true, lines: [] }));
      current.lines.push(line.slice(2));
    } else if (current?.list && /^\s/.test(raw)) {
      current.lines[current.lines.length - 1] += ` ${line}`;
    } else if (current && !current.list) {
      current.lines.push(line);
    } else {
      result.push((current = { list: false, lines: [line] }));
    }
  }
  return result;
}
