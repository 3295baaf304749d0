import { textOfHtml, textRunLimit, withoutLongRuns } from '../../../lambdas/mail/text-of-html';

describe('textOfHtml', () => {
  it('renders headings in capitals and a link address in brackets after its text', () => {
    expect(textOfHtml('<h1>Welcome</h1><p>Your code is <b>482913</b>.</p><p><a href="https://example.org/verify">Verify</a></p>')).toBe(
      'WELCOME\n\nYour code is 482913.\n\nVerify [https://example.org/verify]',
    );
  });

  it('never shows a data: URL of an image or a link, however its scheme is written, and keeps their text', () => {
    const bytes = 'iVBORw0KGgo'.repeat(10);
    const text = textOfHtml(
      `<p><img alt="Logo" src="data:image/png;base64,${bytes}"> <img src=" DATA:image/gif;base64,${bytes}">` +
        `<a href="da&#x0A;ta:text/html;base64,${bytes}">Open</a> <img src="https://example.org/a.png"></p>`,
    );
    expect(text).toBe('Logo Open [https://example.org/a.png]');
  });

  it('leaves out a URL longer than the limit and any run of URL or base64 characters that long, never ordinary text', () => {
    const long = `https://example.org/${'a'.repeat(textRunLimit)}`;
    expect(textOfHtml(`<a href="${long}">Track</a> <img alt="pixel" src="${long}">`)).toBe('Track pixel');
    expect(textOfHtml(`<p>before ${'QUJD'.repeat(textRunLimit)} after</p>`)).toBe('before\n\nafter');
    const prose = `${'word '.repeat(textRunLimit)}${'字'.repeat(textRunLimit)}`;
    expect(withoutLongRuns(prose)).toBe(prose);
    expect(withoutLongRuns(`x ${'a'.repeat(textRunLimit - 1)} y`)).toBe(`x ${'a'.repeat(textRunLimit - 1)} y`);
  });

  it('renders the text of 300,000 nested elements', () => {
    const depth = 300_000;
    expect(textOfHtml(`${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}<p>after</p>`)).toBe('deep text\n\nafter');
  });
});
