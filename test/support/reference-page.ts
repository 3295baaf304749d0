import { parse, type DefaultTreeAdapterMap } from 'parse5';

type Element = DefaultTreeAdapterMap['element'];
type Node = DefaultTreeAdapterMap['childNode'];

/** The API reference page as a browser's parser reads it: its elements, and the text under each id. */
export interface ReferencePage {
  elements: Element[];
  /** The text content under the element with this id; undefined when no element has it. */
  textOf(id: string): string | undefined;
  /** Whether the element with `id` lies inside the element with `ancestorId`. */
  within(id: string, ancestorId: string): boolean;
}

export function readReferencePage(html: string): ReferencePage {
  const elements: Element[] = [];
  const byId = new Map<string, Element>();
  const walk = (node: Node | DefaultTreeAdapterMap['document']) => {
    if ('tagName' in node) {
      elements.push(node);
      const id = attribute(node, 'id');
      if (id !== undefined) byId.set(id, node);
    }
    if ('childNodes' in node) for (const child of node.childNodes) walk(child);
    if ('content' in node) walk(node.content as never);
  };
  walk(parse(html));
  const text = (node: Node): string => ('value' in node && node.nodeName === '#text' ? node.value : 'childNodes' in node ? node.childNodes.map(text).join('') : '');
  return {
    elements,
    textOf: (id) => {
      const element = byId.get(id);
      return element && text(element);
    },
    within: (id, ancestorId) => {
      for (let node: Element | undefined = byId.get(id); node; node = node.parentNode as Element | undefined) {
        if (attribute(node, 'id') === ancestorId) return true;
      }
      return false;
    },
  };
}

export function attribute(element: Element, name: string): string | undefined {
  return element.attrs.find((attr) => attr.name === name)?.value;
}

/** What a script-free page must not hold: elements that run or load anything, handlers, inline style. */
const forbiddenElements = new Set(['script', 'iframe', 'frame', 'object', 'embed', 'img', 'svg', 'math', 'style', 'form', 'base', 'template', 'video', 'audio', 'source', 'picture']);

/**
 * Everything on the page that could run, load or link anywhere: a forbidden element, an event
 * handler or `style` attribute, a `<link>` but the stylesheet, an `href` but a fragment of the page
 * itself or one of `allowedHrefs`, any `src`, `srcset` or `action`, a `<meta>` but the charset and
 * viewport. Empty for a clean page.
 */
export function referencePageHazards(page: ReferencePage, allowedHrefs: string[]): string[] {
  const hazards: string[] = [];
  const ids = new Set(page.elements.map((element) => attribute(element, 'id')).filter((id) => id !== undefined));
  for (const element of page.elements) {
    if (forbiddenElements.has(element.tagName)) hazards.push(`<${element.tagName}>`);
    for (const { name, value } of element.attrs) {
      if (name.startsWith('on') || name === 'style' || ['src', 'srcset', 'action', 'formaction', 'http-equiv', 'ping'].includes(name)) hazards.push(`<${element.tagName} ${name}="${value}">`);
      if (name !== 'href') continue;
      if (value.startsWith('#') ? !ids.has(value.slice(1)) : !allowedHrefs.includes(value)) hazards.push(`<${element.tagName} href="${value}">`);
    }
    if (element.tagName === 'link' && attribute(element, 'rel') !== 'stylesheet') hazards.push(`<link rel="${attribute(element, 'rel')}">`);
    if (element.tagName === 'meta' && !element.attrs.every(({ name }) => ['charset', 'name', 'content'].includes(name))) hazards.push('<meta …>');
  }
  return hazards;
}
