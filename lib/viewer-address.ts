import { Aws, Fn } from 'aws-cdk-lib';
import { viewerAddressHeader } from '../lambdas/core/client-address';

/**
 * How the API's web ACL tells a viewer behind the console's CloudFront distribution from the
 * edge server that connects: the distribution's viewer-request function writes the viewer's
 * address into `viewerAddressHeader` (overwriting whatever the viewer sent), and its API origin
 * adds `originVerifyHeader` with a value only the stack knows. The web ACL keys its rate on the
 * forwarded address only for requests that carry that value, and on the connection's address for
 * every other, so a direct caller cannot pick its own key by forging the header. The key
 * authorizer applies the same rule to name the client in the access log (core/client-address.ts).
 */
export { originVerifyHeader, viewerAddressHeader } from '../lambdas/core/client-address';

/**
 * The origin header's value: the random part of the stack's id (a UUID CloudFormation makes when
 * the stack is created), known to the distribution, the web ACL and the key authorizer, never to a
 * client of the API. Whoever may describe the stack can read it; all it would give them is a rate
 * key and a logged client address of their choice, and the API's per-key and per-account windows
 * still hold.
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
