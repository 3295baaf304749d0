import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { JSONWebKeySet } from 'jose';
import { consoleContentSecurityPolicy } from '../console/security-headers';
import type { Clock } from '../lambdas/core/ports/clock';
import { localConsoleClientId, startLocalOidcIssuer, type LocalOidcIssuer } from './local-oidc-issuer';

const consoleRoot = join(__dirname, '..', 'console');
/** Where the console is served, and where the local issuer is mounted. */
export const consolePath = '/console/';
const issuerMountPath = '/oidc';

/** The OpenID Connect issuer the console signs in with: the local one unless configured. */
export interface ConsoleIssuer {
  issuer: string;
  clientId: string;
  /** Where signing out goes, Cognito's `/logout` shape (`client_id`, `logout_uri`): the local issuer's own, or a configured one. */
  logoutEndpoint?: string;
}

export interface ConsoleFront {
  issuer: string;
  clientId: string;
  /** Answers the console's pages and the local issuer; false for anything else (the API's routes). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** The local issuer's public keys (starting it if need be); absent when another issuer is configured. */
  localIssuerKeys?: () => Promise<JSONWebKeySet>;
}

interface StaticFile {
  body: Buffer;
  type: string;
}

/**
 * The console on `npm start`: the single-page app bundled by esbuild at start and served at
 * `/console/` with the same security headers as in AWS, its `config.json` (issuer, client id),
 * and, unless another issuer is configured, the local OpenID Connect issuer under `/oidc`.
 */
export async function startConsoleFront(options: { origin: string; clock: Clock; issuer?: ConsoleIssuer; support?: string }): Promise<ConsoleFront> {
  // The local issuer starts at its first request: a runtime whose console nobody opens never loads it.
  let local: Promise<LocalOidcIssuer> | undefined;
  const localIssuer = () =>
    (local ??= startLocalOidcIssuer({
      origin: options.origin,
      mountPath: issuerMountPath,
      consoleUrl: `${options.origin}${consolePath}`,
      clock: options.clock,
    }));
  // The local issuer signs out at /logout as Cognito does, so the console's sign-out link has the shape it has in AWS.
  const oidc = options.issuer ?? {
    issuer: `${options.origin}${issuerMountPath}`,
    clientId: localConsoleClientId,
    logoutEndpoint: `${options.origin}${issuerMountPath}/logout`,
  };
  const files = await consoleFiles({ ...oidc, ...(options.support ? { support: options.support } : {}) });
  const headers = consoleHeaders(new URL(oidc.issuer).origin, options.origin);
  return {
    ...oidc,
    ...(options.issuer ? {} : { localIssuerKeys: async () => (await localIssuer()).publicKeys }),
    async handle(req, res) {
      const url = new URL(req.url ?? '/', options.origin);
      if (url.pathname === '/console') {
        res.writeHead(308, { Location: consolePath, 'Cache-Control': 'no-store' });
        res.end();
        return true;
      }
      const file = files.get(url.pathname);
      if (file) {
        if (req.method !== 'GET' && req.method !== 'HEAD') return false;
        req.resume();
        res.writeHead(200, { ...headers, 'Content-Type': file.type, 'Content-Length': String(file.body.length) });
        res.end(req.method === 'HEAD' ? undefined : file.body);
        return true;
      }
      if (options.issuer || !isUnder(url.pathname, issuerMountPath)) return false;
      return (await localIssuer()).handle(req, res);
    },
  };
}

/** The console's files: what `console/` holds, the script bundled and minified as it ships. */
export async function consoleFiles(oidc: ConsoleIssuer & { support?: string }): Promise<Map<string, StaticFile>> {
  const bundle = await build({
    entryPoints: [join(consoleRoot, 'src', 'main.ts')],
    bundle: true,
    minify: true,
    write: false,
    format: 'iife',
    target: 'es2022',
    legalComments: 'none',
  });
  const html = await readFile(join(consoleRoot, 'index.html'));
  return new Map<string, StaticFile>([
    [consolePath, { body: html, type: 'text/html; charset=utf-8' }],
    [`${consolePath}index.html`, { body: html, type: 'text/html; charset=utf-8' }],
    [`${consolePath}app.js`, { body: Buffer.from(bundle.outputFiles[0]!.contents), type: 'text/javascript; charset=utf-8' }],
    [`${consolePath}app.css`, { body: await readFile(join(consoleRoot, 'app.css')), type: 'text/css; charset=utf-8' }],
    [
      `${consolePath}config.json`,
      {
        body: Buffer.from(
          JSON.stringify({
            issuer: oidc.issuer,
            clientId: oidc.clientId,
            ...(oidc.logoutEndpoint ? { logoutEndpoint: oidc.logoutEndpoint } : {}),
            ...(oidc.support ? { support: oidc.support } : {}),
          }),
        ),
        type: 'application/json',
      },
    ],
  ]);
}

/** The headers of every console file: those CloudFront sets in AWS, and never cached. */
export function consoleHeaders(issuerOrigin: string, selfOrigin: string): Record<string, string> {
  return {
    'Content-Security-Policy': consoleContentSecurityPolicy(issuerOrigin === selfOrigin ? '' : issuerOrigin),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

function isUnder(path: string, mountPath: string): boolean {
  return path === mountPath || path.startsWith(`${mountPath}/`);
}
