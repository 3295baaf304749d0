import { parentPort } from 'node:worker_threads';
import { sanitizeEmailHtml } from '../lambdas/mail/sanitize-email-html';
import { textOfHtml } from '../lambdas/mail/text-of-html';
import type { RenderReply, RenderRequest } from './thread-html-renderer';

/**
 * The body of the local intake's rendering thread: the same text rendering and sanitizer as the
 * parser Lambda, run here so that a large HTML mail does not hold the event loop the HTTP front
 * and the SMTP intake share. One request at a time, answered under its id.
 */
function serve(port: NonNullable<typeof parentPort>): void {
  port.on('message', (request: RenderRequest) => {
    let reply: RenderReply;
    try {
      const result = request.op === 'text' ? textOfHtml(request.html) : sanitizeEmailHtml(request.html, { idPrefix: request.idPrefix });
      reply = { id: request.id, result };
    } catch (error) {
      reply = { id: request.id, error: (error as Error).name || 'Error' };
    }
    port.postMessage(reply);
  });
}

if (parentPort) serve(parentPort);
