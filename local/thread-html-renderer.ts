import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { inlineHtmlRenderer } from '../lambdas/mail/ingest-mail';
import type { HtmlRenderer } from '../lambdas/core/ports/html-renderer';

type RenderJob = { html: string } & ({ op: 'text' } | { op: 'sanitize'; idPrefix: string });
export type RenderRequest = RenderJob & { id: number };
export type RenderReply = { id: number; result: string } | { id: number; error: string };

/**
 * HTML up to this many characters is rendered inline. Posting a string to a thread and back costs
 * a copy each way and a thread's own CPU (a thread for every mail's parse was tried and dropped,
 * docs/decisions.md); below this size each rendering holds the event loop for a few milliseconds.
 */
export const threadRenderMinChars = 64 * 1024;

/**
 * The local runtime's HTML renderer: a large HTML's renderings run in one long-lived worker
 * thread, started with the first large mail and unref'd (it never keeps the process alive), so
 * the HTTP front keeps answering while they run. A thread that crashes or is stopped fails the
 * renderings it held: that mail's ingest fails and the intake answers 451, so the sender retries;
 * the next large mail starts a new thread.
 */
export function threadHtmlRenderer(minChars = threadRenderMinChars): HtmlRenderer & { close(): Promise<void> } {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve(result: string): void; reject(error: Error): void }>();

  const failAll = (error: Error) => {
    for (const job of pending.values()) job.reject(error);
    pending.clear();
  };
  const thread = (): Worker => {
    if (worker) return worker;
    const entry = join(__dirname, 'html-render-thread.ts');
    const started = new Worker(`require('tsx/cjs/api').register(); require(${JSON.stringify(entry)});`, { eval: true });
    started.unref();
    started.on('message', (reply: RenderReply) => {
      const job = pending.get(reply.id);
      pending.delete(reply.id);
      if (!job) return;
      if ('error' in reply) job.reject(new Error(`HTML rendering failed in its thread: ${reply.error}`));
      else job.resolve(reply.result);
    });
    const lost = (reason: string) => {
      if (worker === started) worker = undefined;
      failAll(new Error(`HTML rendering thread ${reason}`));
    };
    started.on('error', (error) => lost(`failed: ${error.name}`));
    started.on('exit', (code) => lost(`exited with code ${code}`));
    worker = started;
    return started;
  };
  const render = (request: RenderJob): Promise<string> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      thread().postMessage({ ...request, id });
    });

  return {
    textOf: (html) => (html.length <= minChars ? inlineHtmlRenderer.textOf(html) : render({ op: 'text', html })),
    sanitize: (html, { idPrefix }) =>
      html.length <= minChars ? inlineHtmlRenderer.sanitize(html, { idPrefix }) : render({ op: 'sanitize', html, idPrefix }),
    close: async () => {
      const stopping = worker;
      worker = undefined;
      if (stopping) await stopping.terminate();
      failAll(new Error('HTML rendering thread stopped'));
    },
  };
}
