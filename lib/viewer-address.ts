import { Aws, Fn } from 'aws-cdk-lib';

/**
 * How the API's web ACL tells a viewer behind the console's CloudFront distribution from the
 * edge server that connects: the distribution's viewer-request function writes the viewer's
 * address into `viewerAddressHeader` (overwriting whatever the viewer sent), and its API origin
 * adds `originVerifyHeader` with a value only the stack knows. The web ACL keys its rate on the
 * forwarded address only for requests that carry that value, and on the connection's address for
 * every other, so a direct caller cannot pick its own key by forging the header.
 */
export const viewerAddressHeader = 'x-tempmail-viewer-address';
export const originVerifyHeader = 'x-tempmail-origin-verify';

/**
 * The origin header's value: the random part of the stack's id (a UUID CloudFormation makes when
 * the stack is created), known to the distribution and the web ACL, never to a client of the API.
 * Whoever may describe the stack can read it; all it would give them is a rate key of their choice,
 * and the API's per-key and per-account windows still hold.
 */
export function originVerifyValue(): string {
  return Fn.select(2, Fn.split('/', Aws.STACK_ID));
}

/** The viewer-request function of the API behaviors: the viewer's address, as CloudFront saw it. */
export const viewerAddressFunctionCode = `function handler(event) {
  var request = event.request;
  request.headers['${viewerAddressHeader}'] = { value: event.viewer.ip };
  return request;
}`;
