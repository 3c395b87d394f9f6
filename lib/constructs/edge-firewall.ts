import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

export interface EdgeFirewallProps {
  /** Prefix of the CloudWatch metric names, one per rule and one for the web ACL. */
  metricPrefix: string;
  /** Requests one client address may make per window before it is refused. */
  ratePerAddress: number;
  /** The window WAF counts over: 60, 120, 300 or 600 seconds. */
  rateWindowSeconds: number;
  /** Add the AWS managed rule groups (IP reputation, known bad inputs). */
  managedRules: boolean;
}

/** The body WAF answers a refused address with: the shape API Gateway uses for its own stage throttle. */
export const EDGE_THROTTLE_BODY = '{"message":"Too Many Requests"}';

/**
 * A WAFv2 web ACL for a CloudFront distribution (scope CLOUDFRONT, so its stack must deploy in
 * us-east-1). Everything is allowed but:
 * - addresses on Amazon's IP reputation list, and requests matching known exploit patterns (managed rule
 *   groups, when enabled). The core rule set (AWSManagedRulesCommonRuleSet) is left out on purpose: its
 *   NoUserAgent_HEADER and body-size rules refuse ordinary API clients (servers and scripts without a
 *   User-Agent, MCP requests with larger bodies), and its cross-site-scripting rules match JSON text;
 * - more than `ratePerAddress` requests from one client address within the window: 429 with
 *   Retry-After, until the address's rate falls back under the limit.
 */
export class EdgeFirewall extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeFirewallProps) {
    super(scope, id);
    const visibility = (name: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${props.metricPrefix}-${name}`,
      sampledRequestsEnabled: true,
    });
    const managed = (priority: number, name: string): wafv2.CfnWebACL.RuleProperty => ({
      name,
      priority,
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name } },
      overrideAction: { none: {} },
      visibilityConfig: visibility(name),
    });

    const rules: wafv2.CfnWebACL.RuleProperty[] = [
      ...(props.managedRules
        ? [managed(0, 'AWSManagedRulesAmazonIpReputationList'), managed(1, 'AWSManagedRulesKnownBadInputsRuleSet')]
        : []),
      {
        name: 'RatePerClientAddress',
        priority: 10,
        statement: {
          rateBasedStatement: {
            // The address CloudFront saw the request come from (not X-Forwarded-For, which a client writes).
            aggregateKeyType: 'IP',
            limit: props.ratePerAddress,
            evaluationWindowSec: props.rateWindowSeconds,
          },
        },
        action: {
          block: {
            customResponse: {
              responseCode: 429,
              customResponseBodyKey: 'TooManyRequests',
              responseHeaders: [{ name: 'Retry-After', value: String(props.rateWindowSeconds) }],
            },
          },
        },
        visibilityConfig: visibility('RatePerClientAddress'),
      },
    ];

    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      description: 'Edge of the measurement API: rate limit per client address, AWS managed rules',
      defaultAction: { allow: {} },
      customResponseBodies: { TooManyRequests: { contentType: 'APPLICATION_JSON', content: EDGE_THROTTLE_BODY } },
      rules,
      visibilityConfig: visibility('WebAcl'),
    });
  }
}
