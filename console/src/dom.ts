/** Builds an element; text children are text nodes, never HTML: hostile strings stay text. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | ((event: Event) => void)> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false) element.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

/** Replaces the main region's content and moves focus there, for keyboard and screen-reader users. */
export function show(...children: (Node | null)[]): void {
  const main = document.getElementById('app')!;
  main.replaceChildren(...children.filter((child): child is Node => child !== null));
  main.focus();
}

/** A short human date-time in the reader's locale; `—` for none. */
export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/** What an action costs in requests, said next to it. */
export const costNote = (text: string) => h('p', { class: 'cost' }, text);
