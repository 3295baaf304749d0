import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Makes a response refuse to be framed by any site, whatever writes it: `X-Frame-Options: DENY`
 * and `frame-ancestors 'none'` added to (or put in place of the one in) its Content-Security-Policy.
 * Hooked at the HTTP layer, when the head is written, because a handler behind it (oidc-provider's
 * routes, its 404, Koa's error answer that first clears every header set before) may set its own
 * headers or none: a page left out of a per-route list could be framed and clicked through.
 */
export function refuseFraming(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (status: number, message?: string) => ServerResponse;
  res.writeHead = ((status: number, ...rest: (string | OutgoingHttpHeaders | undefined)[]) => {
    const message = typeof rest[0] === 'string' ? rest[0] : undefined;
    const headers = rest.find((item): item is OutgoingHttpHeaders => typeof item === 'object' && item !== null);
    if (Array.isArray(headers)) throw new TypeError('refuseFraming: headers given as an array are not supported');
    for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) res.setHeader(name, value);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', withoutFraming(res.getHeader('Content-Security-Policy')));
    return message === undefined ? writeHead(status) : writeHead(status, message);
  }) as ServerResponse['writeHead'];
}

/** Each policy with `frame-ancestors 'none'`: its own frame-ancestors directive, if any, replaced. */
function withoutFraming(policy: number | string | string[] | undefined): string | string[] {
  if (Array.isArray(policy)) return policy.map((one) => withoutFraming(one) as string);
  const directives = String(policy ?? '')
    .split(';')
    .map((directive) => directive.trim())
    .filter((directive) => directive !== '' && !/^frame-ancestors(\s|$)/i.test(directive));
  return [...directives, "frame-ancestors 'none'"].join('; ');
}
