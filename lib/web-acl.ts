import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import type { ErrorBody } from '../lambdas/api/error-response';
import type { FrontRateLimitReason } from '../lambdas/core/errors';
import { originVerifyHeader, originVerifyValue, viewerAddressHeader } from './viewer-address';

/** WAF counts a client's requests over this window (seconds); a blocked client retries after it. */
export const ipRateWindowSeconds = 60;

export interface IpRateLimitProps {
  /** Requests one client IP may make in `ipRateWindowSeconds` before WAF blocks it. */
  limit: number;
}

/**
 * A regional web ACL in front of the API stage with rate-based rules keyed on the client IP (for
 * requests through the console's CloudFront distribution, the viewer's: lib/viewer-address.ts),
 * so one anonymous client cannot take the stage's throttle (and two functions per request) from
 * everyone. WAF answers the block itself, before API Gateway: a custom response in the contract's
 * error shape, 429 `rate_limit_exceeded` with `Retry-After` (a WAF custom response takes
 * precedence over the gateway's responses), naming its limit as every 429 does (`details[0].reason`
 * `firewall_throttle`). WAF cannot insert the gateway's request id, so the body names none
 * (docs/decisions.md).
 */
export class IpRateLimit extends Construct {
  readonly webAclArn: string;

  constructor(scope: Construct, id: string, props: IpRateLimitProps) {
    super(scope, id);
    const reason: FrontRateLimitReason = 'firewall_throttle';
    const body: ErrorBody = {
      error: {
        code: 'rate_limit_exceeded',
        message: `Too many requests from this network location; retry after ${ipRateWindowSeconds} seconds.`,
        request_id: 'req_waf',
        details: [{ reason }],
      },
    };
    const action = {
      block: {
        customResponse: {
          responseCode: 429,
          customResponseBodyKey: 'rate-limited',
          responseHeaders: [
            { name: 'Retry-After', value: String(ipRateWindowSeconds) },
            { name: 'Cache-Control', value: 'private, no-store' },
          ],
        },
      },
    };
    // A request the console's distribution forwarded: it carries the stack's own origin value.
    const throughDistribution = {
      byteMatchStatement: {
        fieldToMatch: { singleHeader: { Name: originVerifyHeader } },
        positionalConstraint: 'EXACTLY',
        searchString: originVerifyValue(),
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    };
    const acl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: 'tempmail-api' },
      customResponseBodies: { 'rate-limited': { contentType: 'APPLICATION_JSON', content: JSON.stringify(body) } },
      rules: [
        {
          // Direct callers (and the user pool's): keyed on the connection's address, whatever headers they send.
          name: 'ip-rate-limit',
          priority: 0,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: props.limit,
              evaluationWindowSec: ipRateWindowSeconds,
              scopeDownStatement: { notStatement: { statement: throughDistribution } },
            },
          },
          action,
          visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: 'tempmail-ip-rate-limit' },
        },
        {
          // Through the console's distribution the connection is an edge server's, shared by many
          // viewers: keyed on the viewer's address the distribution wrote (one that is not an address is blocked).
          name: 'viewer-rate-limit',
          priority: 1,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'FORWARDED_IP',
              forwardedIpConfig: { headerName: viewerAddressHeader, fallbackBehavior: 'MATCH' },
              limit: props.limit,
              evaluationWindowSec: ipRateWindowSeconds,
              scopeDownStatement: throughDistribution,
            },
          },
          action,
          visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: 'tempmail-viewer-rate-limit' },
        },
      ],
    });
    this.webAclArn = acl.attrArn;
  }

  /** Puts the web ACL in front of another regional resource (the console's user pool). */
  protect(id: string, resourceArn: string): void {
    new CfnWebACLAssociation(this, id, { resourceArn, webAclArn: this.webAclArn });
  }
}
