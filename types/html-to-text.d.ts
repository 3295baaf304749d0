declare module 'html-to-text' {
  /** The part of html-to-text's options the service passes (the package ships no types of its own). */
  interface HtmlToTextOptions {
    limits?: { maxDepth?: number };
    /** Per-element settings; for `a` and `img`, `pathRewrite` returns the URL to show, `''` for none. */
    selectors?: Array<{ selector: string; options?: { pathRewrite?: (path: string) => string } }>;
  }

  export function htmlToText(html: string, options?: HtmlToTextOptions): string;
  /** The converter for `options`, compiled once: `htmlToText(html, options)` is `compile(options)(html)`. */
  export function compile(options?: HtmlToTextOptions): (html: string) => string;
}
