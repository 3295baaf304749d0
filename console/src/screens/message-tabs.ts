import { text } from '../api';
import { costNote, h } from '../dom';
import type { Message } from '../shapes';

/**
 * The message's views as tabs: its sanitized HTML, its text, and its headers and raw source, read
 * from the raw source on first opening (1 request, said on the tab's panel).
 */
export function messageTabs(message: Message, frame: HTMLIFrameElement, key: string): HTMLElement {
  let raw: Promise<string> | undefined;
  const headers = h('pre', { class: 'mail-text', id: 'mail-headers' });
  const source = h('pre', { class: 'mail-text', id: 'mail-source' });
  const loadRaw = () =>
    (raw ??= text(message.source_path, key).then((body) => {
      const end = body.search(/\r?\n\r?\n/);
      headers.textContent = end < 0 ? body : body.slice(0, end);
      source.textContent = body;
      return body;
    }));
  const rawNote = () => costNote('Headers and raw source are read from the raw source: 1 request, the first time either is opened.');
  const panels: [string, string, Node[], boolean][] = [
    ['html', 'HTML', [message.html ? frame : h('p', {}, 'This message has no HTML part.')], false],
    ['text', 'Text', [h('pre', { class: 'mail-text', id: 'mail-text' }, message.text)], false],
    ['headers', 'Headers', [rawNote(), headers], true],
    ['source', 'Raw source', [rawNote(), source], true],
  ];
  const list = h('div', { role: 'tablist', 'aria-label': 'Message views', class: 'tabs' });
  const container = h('div', {}, list);
  const tabs: HTMLButtonElement[] = [];
  const panelElements: HTMLElement[] = [];
  const select = (index: number) => {
    tabs.forEach((tab, i) => {
      tab.setAttribute('aria-selected', String(i === index));
      tab.tabIndex = i === index ? 0 : -1;
      panelElements[i]!.hidden = i !== index;
    });
    if (panels[index]![3]) void loadRaw().catch((error: Error) => source.replaceChildren(error.message));
  };
  panels.forEach(([id, label, children], index) => {
    const tab = h('button', { type: 'button', role: 'tab', id: `tab-${id}`, 'aria-controls': `panel-${id}`, class: 'tab', onclick: () => select(index) }, label);
    tab.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (!step) return;
      const next = (index + step + tabs.length) % tabs.length;
      select(next);
      tabs[next]!.focus();
    });
    tabs.push(tab);
    list.append(tab);
    const panel = h('div', { role: 'tabpanel', id: `panel-${id}`, 'aria-labelledby': `tab-${id}` }, ...children);
    panelElements.push(panel);
    container.append(panel);
  });
  select(message.html ? 0 : 1);
  return container;
}
