/**
 * The headers of every console file, the same on `npm start` and from CloudFront: a strict CSP
 * without inline script, clickjacking refused, no referrer (the sign-in code is in a URL once).
 * `issuerSources`: where the OpenID Connect issuer answers, when that is not the console's origin.
 */
export function consoleContentSecurityPolicy(issuerSources: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${issuerSources ? ` ${issuerSources}` : ''}`,
    "frame-src 'self'",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
