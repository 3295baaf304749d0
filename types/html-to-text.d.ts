declare module 'html-to-text' {
  /** The part of html-to-text's options the service passes (the package ships no types of its own). */
  interface HtmlToTextOptions {
    limits?: { maxDepth?: number };
  }

  export function htmlToText(html: string, options?: HtmlToTextOptions): string;
}
