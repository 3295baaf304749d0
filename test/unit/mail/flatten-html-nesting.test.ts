import { flattenHtmlNesting, htmlNestingLimit } from '../../../lambdas/mail/flatten-html-nesting';
import { asParsed } from '../../support/parsed-html';

describe('flattenHtmlNesting', () => {
  it('drops the start and end tags nested beyond the limit and keeps every character of text', () => {
    expect(flattenHtmlNesting('<b><i><u>x</u></i></b>', 2)).toBe('<b><i>x</i></b>');
    expect(flattenHtmlNesting('<div><div><div>a<div>b</div>c</div>d</div>e</div>f', 2)).toBe('<div><div>abcd</div>e</div>f');
  });

  it('counts the way the parser builds: void elements open no level, and a new cell or paragraph closes the last one', () => {
    const sloppy = `<table>${'<tr><td>cell<td>cell'.repeat(2000)}</table><div>${'<p>para<br><img src=x>'.repeat(2000)}</div>`;
    expect(flattenHtmlNesting(sloppy, 4)).toBe(sloppy);
  });

  it('reads tags as the parser does: a quoted ">" stays inside its attribute, raw text and comments hold no tags', () => {
    const html = '<div title=">"><div><script><div><div></script><!-- <div><div> --><style>}</style>x</div></div>';
    expect(flattenHtmlNesting(html, 2)).toBe(html);
    expect(flattenHtmlNesting('<div title=">"><div><b>x</b></div></div>', 2)).toBe('<div title=">"><div>x</div></div>');
  });

  it('hands the parser 300,000 nested elements as no deeper than the limit: the work per tag is bounded', () => {
    const depth = 300_000;
    const html = `${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}`;
    // Unflattened, the parser's work would grow with the square of the depth (minutes here).
    expect(asParsed(flattenHtmlNesting(html))).toEqual({ depth: htmlNestingLimit, startTags: htmlNestingLimit, text: 'deep text' });
  });
});
