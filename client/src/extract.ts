import { decodeEntities, htmlToText } from './html-text';

/** The parts of a message extraction reads. */
export interface ExtractableMessage {
  subject?: string;
  text?: string;
  html?: string;
}

/** Words that announce a code, in the languages sign-up mails are commonly written in. */
const codeWords =
  /\b(code|codes|otp|pin|passcode|one[- ]time|verification|verify|security|token|c[oó]digo|code de|bestätigungscode|sicherheitscode|kod[a-z]*|codice|verificatiecode|c[oó]d)\b|код|验证码|驗證碼|确认码|認証コード|確認コード|コード|인증|코드|рin/iu;
/**
 * Words that make a number something other than a code, when they end the text before it (then
 * optional spaces, one of `#:№`, spaces). Tested only on the last few characters before a
 * candidate (see `followsNotCodeWord`), never on the whole line before it.
 */
const notCodeWords = /(\$|€|£|¥|usd|eur|order|invoice|rechnung|commande|pedido|заказ|tel|phone|fax|ref(erence)?|ticket|account ending|год|year)$/i;
/** The longest of `notCodeWords`, in UTF-16 units ("account ending"). */
const NOT_CODE_WORD_UNITS = 14;

/**
 * How much of each part of a message (subject, text, HTML) extraction reads: the first 1 MiB of
 * characters. Codes and action links sit near the top of a mail; past this a hostile or
 * enormous mail is not read, so extraction ends in milliseconds (every step is linear in what
 * it reads) and a wait's deadline or the console's message view never stalls on it.
 */
export const MAX_EXTRACT_CHARS = 1024 * 1024;

const candidatePattern = /(?<![\p{L}\p{N}\-_./:@#])(\d{3}[ -]\d{3}|\d{4,8}|(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6,10})(?![\p{L}\p{N}_/@%]|[.,:-]\p{N})/gu;

/**
 * The verification codes of a message, most likely first: 4 to 8 digits (also written `123 456`
 * or `123-456`) or 6 to 10 capital letters and digits, preferred when the line or the line
 * before names a code (in English, German, French, Spanish, Portuguese, Italian, Dutch, Polish,
 * Turkish, Russian, Chinese, Japanese or Korean), or when the code stands alone on its line.
 * Numbers inside links, addresses, dates, times, prices and order numbers are not codes. Reads
 * `text` and the subject; an HTML-only mail is read from its sanitized HTML. Each part is read
 * up to `MAX_EXTRACT_CHARS`, in time linear in its length.
 */
export function extractCodes(message: ExtractableMessage): string[] {
  const lines = [bounded(message.subject), ...readableText(message).split('\n')].map((line) => line.replace(/https?:\/\/\S+/g, ' '));
  const scored: { code: string; score: number; order: number }[] = [];
  // Whether each line names a code: tested once per line, not once per candidate.
  let previousNamesCode = false;
  for (const line of lines) {
    const namesCode = codeWords.test(line);
    const trimmed = line.trim();
    for (const match of line.matchAll(candidatePattern)) {
      if (followsNotCodeWord(line, match.index)) continue;
      const value = match[0];
      if (/^(19|20)\d\d$/.test(value)) continue; // a year
      let score = 0;
      if (namesCode || previousNamesCode) score += 2;
      if (trimmed === value) score += 2;
      if (/^\d/.test(value) || /[- ]/.test(value)) score += 1;
      if (score < 2) continue;
      scored.push({ code: value.replace(/[ -]/g, ''), score, order: scored.length });
    }
    previousNamesCode = namesCode;
  }
  const best = scored.sort((a, b) => b.score - a.score || a.order - b.order).map((entry) => entry.code);
  return [...new Set(best)];
}

/**
 * Whether the text before `end` ends with a word of `notCodeWords`, then spaces, at most one of
 * `#:№`, spaces. Walks back over those spaces (which lie between this candidate and the one
 * before, so all walks together read the line once) and tests a few characters, not the line.
 */
function followsNotCodeWord(line: string, end: number): boolean {
  let at = skipSpacesBack(line, end);
  if (at > 0 && '#:№'.includes(line[at - 1]!)) at = skipSpacesBack(line, at - 1);
  return notCodeWords.test(line.slice(Math.max(0, at - NOT_CODE_WORD_UNITS), at));
}

function skipSpacesBack(line: string, end: number): number {
  let at = end;
  while (at > 0 && /\s/.test(line[at - 1]!)) at--;
  return at;
}

/** The most likely verification code, or undefined. */
export function extractCode(message: ExtractableMessage): string | undefined {
  return extractCodes(message)[0];
}

/** Words of the links a test wants: confirmation, activation, reset, sign-in. */
const actionWords =
  /verif|confirm|activat|reset|password|passwort|magic|login|log in|sign[ -]?in|signin|sign[ -]?up|token|invite|bestätig|aktivier|anmeld|confirmer|vérifi|activer|connexion|confirmar|verificar|activar|restablecer|iniciar|accedi|conferma|attiva|bevestig|potwierd|aktywuj|doğrula|onayla|подтвер|актив|войти|确认|確認|验证|認証|ログイン|登录|인증/iu;
/** Links a test never wants. */
const chromeWords = /unsubscribe|abmelden|désabonner|desuscrib|darse de baja|privacy|datenschutz|terms|help|support|preferences|view (it )?in (your )?browser|mailto:|tel:/i;

/**
 * The links of a message, the likely action first (verify, confirm, reset, sign in, in several
 * languages, by the link's text or its address), then the others; unsubscribe, privacy, help
 * and `mailto:` links are left out. `href`s are entity-decoded (`&amp;` becomes `&`); a tracking
 * redirect is returned as it is, since following it is what a reader does.
 */
export function extractLinks(message: ExtractableMessage): string[] {
  const found: { url: string; chrome: boolean; action: boolean }[] = [];
  const html = bounded(message.html);
  // An anchor's text runs to the first `</a>` after its opening tag; the next anchor is looked for
  // after that. Each search starts where the last one ended, so unclosed anchors cost no rescans.
  const open = /<a\b[^>]*?\bhref\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>/gi;
  const close = /<\/a\s*>/gi;
  let closeAt = -1;
  let closeEnd = -1;
  for (let anchor = open.exec(html); anchor; anchor = open.exec(html)) {
    const contentStart = anchor.index + anchor[0].length;
    if (closeAt < contentStart) {
      close.lastIndex = contentStart;
      const closing = close.exec(html);
      if (!closing) break; // no anchor after this one is closed either
      closeAt = closing.index;
      closeEnd = close.lastIndex;
    }
    const url = decodeEntities((anchor[2] ?? anchor[3] ?? anchor[4] ?? '').trim());
    const label = htmlToText(html.slice(contentStart, closeAt));
    found.push({ url, chrome: chromeWords.test(url) || chromeWords.test(label), action: actionWords.test(label) || actionWords.test(url) });
    open.lastIndex = closeEnd;
  }
  const text = bounded(message.text);
  // A link's label is the text before it on its line, read in one pass: each test of a label
  // asks a scanner that moves only forward, since labels start at line starts, in order.
  const hasWordChar = forwardScanner(/[\p{L}\p{N}]/gu, text);
  const hasChrome = forwardScanner(chromeWords, text);
  const hasAction = forwardScanner(actionWords, text);
  let lineStart = 0;
  let previousLineStart = 0;
  let scanned = 0;
  for (const match of text.matchAll(/https?:\/\/[^\s<>"'()[\]{}]+/g)) {
    const url = match[0].replace(/[.,;:!?]+$/, '');
    for (; scanned < match.index; scanned++) {
      if (text[scanned] === '\n') {
        previousLineStart = lineStart;
        lineStart = scanned + 1;
      }
    }
    // A link on a line of its own (or in brackets after its text, as HTML-to-text writes it) is labelled by the line before.
    const labelStart = hasWordChar(lineStart, match.index) ? lineStart : lineStart === 0 ? 0 : previousLineStart;
    found.push({ url, chrome: chromeWords.test(url) || hasChrome(labelStart, match.index), action: hasAction(labelStart, match.index) || actionWords.test(url) });
  }
  const links = found.filter(({ url, chrome }) => /^https?:\/\//i.test(url) && !chrome);
  const ranked = [...links.filter(({ action }) => action), ...links].map(({ url }) => url);
  return [...new Set(ranked)];
}

/**
 * Whether `text` holds a match of `pattern` within [from, to), for queries whose `from` never
 * decreases: the first match at or after `from` is found once and kept until `from` passes it,
 * so all queries together read the text about once. (The patterns are lists of words, none
 * inside another, so the first match decides.)
 */
function forwardScanner(pattern: RegExp, text: string): (from: number, to: number) => boolean {
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  let searchedFrom = Infinity; // nothing searched yet
  let start = Infinity;
  let end = Infinity;
  return (from, to) => {
    if (from < searchedFrom || from > start) {
      global.lastIndex = from;
      const found = global.exec(text);
      searchedFrom = from;
      start = found ? found.index : Infinity;
      end = found ? found.index + found[0].length : Infinity;
    }
    return end <= to;
  };
}

/** The most likely action link, or undefined. */
export function extractLink(message: ExtractableMessage): string | undefined {
  return extractLinks(message)[0];
}

function readableText(message: ExtractableMessage): string {
  const text = bounded(message.text);
  if (text.trim() !== '') return text;
  return htmlToText(bounded(message.html));
}

/** A part of a message, cut to what extraction reads. */
function bounded(part: string | undefined): string {
  return (part ?? '').slice(0, MAX_EXTRACT_CHARS);
}
