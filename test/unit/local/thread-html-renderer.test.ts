import { inlineHtmlRenderer } from '../../../lambdas/mail/ingest-mail';
import { threadHtmlRenderer } from '../../../local/thread-html-renderer';

const large = `${'<div>'.repeat(2_000)}<p onclick="x()">deep <a href="#top">up</a></p>${'</div>'.repeat(2_000)}<script>x()</script>`;

describe('the local rendering thread', () => {
  it('renders large HTML in its thread exactly as the parser Lambda renders it inline', async () => {
    const renderer = threadHtmlRenderer(1024);
    try {
      expect(large.length).toBeGreaterThan(1024);
      expect(await renderer.textOf(large)).toBe(inlineHtmlRenderer.textOf(large));
      expect(await renderer.sanitize(large, { idPrefix: 'm-1-' })).toBe(inlineHtmlRenderer.sanitize(large, { idPrefix: 'm-1-' }));
    } finally {
      await renderer.close();
    }
  });

  it('fails a rendering the stopped thread held rather than leave it pending (the intake answers 451), and starts a new thread for the next', async () => {
    const renderer = threadHtmlRenderer(1024);
    try {
      const held = renderer.sanitize(large, { idPrefix: 'm-2-' });
      await renderer.close();
      await expect(held).rejects.toThrow('HTML rendering thread');
      expect(await renderer.textOf(large)).toBe(inlineHtmlRenderer.textOf(large));
    } finally {
      await renderer.close();
    }
  });
});
