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
/** Words that make a number something other than a code. */
const notCodeWords = /(\$|€|£|¥|usd|eur|order|invoice|rechnung|commande|pedido|заказ|tel|phone|fax|ref(erence)?|ticket|account ending|год|year)\s*[#:№]?\s*$/i;

const candidatePattern = /(?<![\p{L}\p{N}\-_./:@#])(\d{3}[ -]\d{3}|\d{4,8}|(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6,10})(?![\p{L}\p{N}_/@%]|[.,:-]\p{N})/gu;

/**
 * The verification codes of a message, most likely first: 4 to 8 digits (also written `123 456`
 * or `123-456`) or 6 to 10 capital letters and digits, preferred when the line or the line
 * before names a code (in English, German, French, Spanish, Portuguese, Italian, Dutch, Polish,
 * Turkish, Russian, Chinese, Japanese or Korean), or when the code stands alone on its line.
 * Numbers inside links, addresses, dates, times, prices and order numbers are not codes. Reads
 * `text` and the subject; an HTML-only mail is read from its sanitized HTML.
 */
export function extractCodes(message: ExtractableMessage): string[] {
  const lines = [message.subject ?? '', ...readableText(message).split('\n')].map((line) => line.replace(/https?:\/\/\S+/g, ' '));
  const scored: { code: string; score: number; order: number }[] = [];
  lines.forEach((line, index) => {
    for (const match of line.matchAll(candidatePattern)) {
      const before = line.slice(0, match.index);
      if (notCodeWords.test(before)) continue;
      const value = match[0];
      if (/^(19|20)\d\d$/.test(value)) continue; // a year
      let score = 0;
      if (codeWords.test(line) || codeWords.test(lines[index - 1] ?? '')) score += 2;
      if (line.trim() === value) score += 2;
      if (/^\d/.test(value) || /[- ]/.test(value)) score += 1;
      if (score < 2) continue;
      scored.push({ code: value.replace(/[ -]/g, ''), score, order: scored.length });
    }
  });
  const best = scored.sort((a, b) => b.score - a.score || a.order - b.order).map((entry) => entry.code);
  return [...new Set(best)];
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
  const found: { url: string; label: string }[] = [];
  for (const anchor of (message.html ?? '').matchAll(/<a\b[^>]*?\bhref\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi)) {
    const url = decodeEntities((anchor[2] ?? anchor[3] ?? anchor[4] ?? '').trim());
    found.push({ url, label: htmlToText(anchor[5] ?? '') });
  }
  const text = message.text ?? '';
  for (const match of text.matchAll(/https?:\/\/[^\s<>"'()[\]{}]+/g)) {
    const url = match[0].replace(/[.,;:!?]+$/, '');
    const lineStart = text.lastIndexOf('\n', match.index - 1) + 1;
    let label = text.slice(lineStart, match.index);
    // A link on a line of its own (or in brackets after its text, as HTML-to-text writes it) is labelled by the line before.
    if (!/[\p{L}\p{N}]/u.test(label)) label = text.slice(text.lastIndexOf('\n', lineStart - 2) + 1, match.index);
    found.push({ url, label });
  }
  const links = found.filter(({ url, label }) => /^https?:\/\//i.test(url) && !chromeWords.test(url) && !chromeWords.test(label));
  const ranked = [
    ...links.filter(({ url, label }) => actionWords.test(label) || actionWords.test(url)),
    ...links,
  ].map(({ url }) => url);
  return [...new Set(ranked)];
}

/** The most likely action link, or undefined. */
export function extractLink(message: ExtractableMessage): string | undefined {
  return extractLinks(message)[0];
}

function readableText(message: ExtractableMessage): string {
  if (message.text && message.text.trim() !== '') return message.text;
  return htmlToText(message.html ?? '');
}
