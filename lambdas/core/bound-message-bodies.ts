import { payloadBytes, prefixWithin } from './payload-bytes';

/**
 * What a message read may take of Lambda's buffered response (`bufferedPayloadLimitBytes`,
 * 6,000,000): 5,000,000 bytes as the runtime serializes it, every escape counted. The rest is
 * margin for the response headers and for anything this count could miss.
 */
export const messageReadBudgetBytes = 5_000_000;

/**
 * The sign that `text` or `html` was cut to fit a read: it ends with this marker, which names
 * the message's raw source (`source_path`), where the whole mail is. The contract allows no
 * property beyond those listed, so the sign lives inside the field itself.
 */
export function truncationMarker(field: 'text' | 'html', sourcePath: string): string {
  const notice = `[Truncated: the whole message is its source, ${sourcePath}]`;
  return field === 'text' ? `\n\n${notice}` : `<p>${notice}</p>`;
}

/**
 * `text` and `html` cut so that their characters cost at most `budget` payload bytes together,
 * each cut one ending with its truncation marker (the markers' cost is taken from the budget
 * first). Neither is cut while both fit. Otherwise each may take half; one that needs less
 * leaves the rest to the other. HTML is cut only between tags and entities, so the prefix
 * never ends inside markup the sanitizer wrote.
 */
export function boundMessageBodies(
  bodies: { text: string; html: string },
  budget: number,
  sourcePath: string,
): { text: string; html: string } {
  const markers = { text: truncationMarker('text', sourcePath), html: truncationMarker('html', sourcePath) };
  const textCost = payloadBytes(bodies.text, budget);
  const htmlCost = payloadBytes(bodies.html, budget);
  if (textCost + htmlCost <= budget) return bodies;

  const available = Math.max(0, budget - payloadBytes(markers.text) - payloadBytes(markers.html));
  const half = Math.floor(available / 2);
  const textShare = textCost <= half ? textCost : htmlCost <= half ? available - htmlCost : half;
  const htmlShare = available - textShare;
  return {
    text: textCost <= textShare ? bodies.text : prefixWithin(bodies.text, textShare) + markers.text,
    html: htmlCost <= htmlShare ? bodies.html : cutBetweenMarkup(prefixWithin(bodies.html, htmlShare)) + markers.html,
  };
}

/**
 * A prefix of sanitized HTML that ends outside any tag and any character reference: the
 * sanitizer escapes every `<` and `&` of text and attribute values, so a `<` with no `>` after
 * it opens an unfinished tag, and an `&` with no `;` after it an unfinished reference.
 */
function cutBetweenMarkup(prefix: string): string {
  let cut = prefix;
  const open = cut.lastIndexOf('<');
  if (open > cut.lastIndexOf('>')) cut = cut.slice(0, open);
  const reference = cut.lastIndexOf('&');
  if (reference > cut.lastIndexOf(';')) cut = cut.slice(0, reference);
  return cut;
}
