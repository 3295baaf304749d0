import { compile } from 'html-to-text';
import { isDataUrl } from './email-urls';
import { flattenHtmlNesting } from './flatten-html-nesting';

/**
 * The longest URL a text rendering shows, and the longest run of URL and base64 characters it
 * keeps: far above a real link (tracking links reach one or two thousand characters), far below
 * an inline image's bytes (a 50 KB logo is 68,000 characters of base64).
 */
export const textRunLimit = 4096;

/**
 * The characters of HTML rendered as text: html-to-text's own default, applied here so that a
 * longer mail is cut without html-to-text's warning on the console. Far beyond a readable mail.
 */
export const textInputLimit = 16 * 1024 * 1024;

/** Only what is worth reading: no `data:` URL (an image's or a file's bytes) and no URL over the limit. */
const shownUrl = (url: string) => (isDataUrl(url) || url.length > textRunLimit ? '' : url);

const options = {
  selectors: [
    { selector: 'a', options: { pathRewrite: shownUrl } },
    { selector: 'img', options: { pathRewrite: shownUrl } },
  ],
};

/**
 * html-to-text's converter for these options, compiled on the first HTML-only mail and kept:
 * `htmlToText(html, options)` compiled them again for every mail.
 */
let converter: ((html: string) => string) | undefined;

/**
 * The plain-text rendering of a mail's HTML, for a mail without a text part (DESIGN: whatever the
 * MIME structure), by html-to-text (headings in capitals, a link's address in brackets after its
 * text). The nesting is bounded first (`flattenHtmlNesting`), so the work is linear in the size
 * whatever the markup, and html-to-text needs no depth limit of its own (it cut deeper text off).
 * A link or image shows its address unless it is a `data:` URL or longer than `textRunLimit`, and
 * any run of URL characters that long (bytes pasted as text) is left out: a 5 MB inline image
 * made 7.5 million characters of text before. Only the first `textInputLimit` characters are rendered. HTML it
 * cannot convert leaves the text empty.
 */
export function textOfHtml(html: string): string {
  try {
    const convert = (converter ??= compile(options));
    return withoutLongRuns(convert(flattenHtmlNesting(html.slice(0, textInputLimit))));
  } catch {
    return '';
  }
}

/** Characters of URLs and base64, in a run without spaces: what bytes look like when written as text. */
const runCharacters = new Uint8Array(128);
for (const character of "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-._~:/?#[]@!$&'()*+,;=%") {
  runCharacters[character.charCodeAt(0)] = 1;
}
const isRunCharacter = (code: number) => code < 128 && runCharacters[code] === 1;

/**
 * `text` without any run of `textRunLimit` or more URL and base64 characters. One pass (a regular
 * expression would retry every start of a long run that falls short: quadratic).
 */
export function withoutLongRuns(text: string): string {
  const kept: string[] = [];
  let from = 0;
  let runStart = 0;
  for (let index = 0; index <= text.length; index += 1) {
    if (index < text.length && isRunCharacter(text.charCodeAt(index))) continue;
    if (index - runStart >= textRunLimit) {
      kept.push(text.slice(from, runStart));
      from = index;
    }
    runStart = index + 1;
  }
  if (from === 0) return text;
  kept.push(text.slice(from));
  return kept.join('');
}
