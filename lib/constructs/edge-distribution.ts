import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import { Construct } from 'constructs';

export interface EdgeDistributionProps {
  api: apigwv2.IHttpApi;
  /** ARN of a WAFv2 web ACL of scope CLOUDFRONT (EdgeFirewall, in us-east-1). */
  webAclArn: string;
  /** The API's integration timeout: CloudFront waits one second longer, so the API's own error arrives. */
  integrationTimeout: Duration;
}

/**
 * A CloudFront distribution in front of the HTTP API, carrying the WAF web ACL (HTTP APIs take none of
 * their own). It changes nothing of what the API answers:
 * - caching off (managed policy CachingDisabled): every request reaches the API, whose answers depend on
 *   the key, the budget and the clock;
 * - every viewer header, query string and cookie forwarded but Host (managed policy
 *   AllViewerExceptHostHeader): Authorization (with caching off, this policy forwards it), Accept, Origin,
 *   mcp-protocol-version, mcp-session-id... reach the functions as sent, and the Host is the API's own, as
 *   API Gateway requires;
 * - all methods: CloudFront offers GET+HEAD, GET+HEAD+OPTIONS, or all seven, and POST /mcp needs the
 *   last. PUT, PATCH and DELETE reach the API's $default route, which answers 405 with Allow in the
 *   contract's envelope, exactly as without the edge;
 * - HTTPS only, to the viewer and to the origin; no compression by CloudFront, so the bytes are the API's.
 */
export class EdgeDistribution extends Construct {
  readonly distribution: cloudfront.Distribution;

  constructor(scope: Construct, id: string, props: EdgeDistributionProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const origin = new origins.HttpOrigin(`${props.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
      readTimeout: props.integrationTimeout.plus(Duration.seconds(1)),
    });

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Measurement API edge: WAF rate limit per client address, no caching',
      webAclId: props.webAclArn,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      defaultBehavior: {
        origin,
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
        cachedMethods: cloudfront.CachedMethods.CACHE_GET_HEAD,
        cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
        originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        compress: false,
      },
    });

    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'The API serves its tenants wherever they are; refusing countries is a business decision, not a default.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Every request CloudFront forwards is in the API stage access log; what the edge refuses is counted per rule by the web ACL CloudWatch metrics, with sampled requests.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'Served on the default *.cloudfront.net name, whose certificate CloudFront pins to its TLSv1 policy; a higher minimum needs a custom domain with a us-east-1 certificate. Origin traffic is TLS 1.2 only.',
      },
    );
  }
}
