import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** The header the console's distribution writes the viewer's address into, overwriting any a viewer sent. */
export const viewerAddressHeader = 'x-tempmail-viewer-address';
/** The header its API origin adds, with a value only the stack knows: the viewer header is its own. */
export const originVerifyHeader = 'x-tempmail-origin-verify';

/** Where a request says it came from, as the gateway hands it to the key authorizer. */
export interface RequestOrigin {
  /** The address of the connection: a CloudFront edge server's for a request through the console's distribution. */
  connection: string;
  /** Every value of the viewer address header (`x-tempmail-viewer-address`). */
  viewer: readonly string[];
  /** Every value of the origin-verify header (`x-tempmail-origin-verify`). */
  originVerify: readonly string[];
}

/**
 * The address of the client behind a request, for the access log. Any caller can send a viewer
 * address header, so it is believed only when the request also carries the value the console's
 * distribution adds and nobody else knows (`expectedVerify`), exactly once, with one viewer value
 * that is an IP address; every other request is named by its connection. The same rule keys the
 * web ACL's rate (lib/web-acl.ts), so the log names the client the limit counted.
 */
export function clientAddress(origin: RequestOrigin, expectedVerify: string | undefined): string {
  const [viewer] = origin.viewer;
  const [verify] = origin.originVerify;
  const trusted =
    expectedVerify !== undefined &&
    expectedVerify !== '' &&
    origin.originVerify.length === 1 &&
    verify !== undefined &&
    sameSecret(verify, expectedVerify) &&
    origin.viewer.length === 1 &&
    viewer !== undefined &&
    isIP(viewer) !== 0;
  return trusted ? viewer : origin.connection;
}

/** Compares without telling a caller, by the time taken, how much of a guess was right. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
