/**
 * The two renderings of a mail's HTML, each a whole-document pass: its plain text (for an
 * HTML-only mail) and its sanitized copy, safe to serve. The same functions everywhere; the local
 * runtime may run them off its one event loop for a large mail, since there the API answers on
 * that loop too. A rendering that fails throws, and the mail is then not acknowledged.
 */
export interface HtmlRenderer {
  textOf(html: string): string | Promise<string>;
  sanitize(html: string, options: { idPrefix: string }): string | Promise<string>;
}
