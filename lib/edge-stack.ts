import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { StageConfig } from './config.js';
import { EdgeFirewall } from './constructs/edge-firewall.js';

/** The region where WAF web ACLs for CloudFront must be created, whatever the stage's region. */
export const EDGE_REGION = 'us-east-1';

export interface EdgeStackProps extends StackProps {
  config: StageConfig;
}

/**
 * The WAF web ACL of the stage's CloudFront edge. A stack of its own because a web ACL of scope
 * CLOUDFRONT exists only in us-east-1, while the stage lives in its own region; the stateless stack
 * reads the ACL's ARN across regions (Fn::GetStackOutput with a Region, the app's weak references).
 */
export class EdgeStack extends Stack {
  readonly firewall: EdgeFirewall;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.firewall = new EdgeFirewall(this, 'Firewall', {
      metricPrefix: `geo-measurement-${config.stageName}-edge`,
      ratePerAddress: config.edge.ratePerAddress,
      rateWindowSeconds: config.edge.rateWindowSeconds,
      managedRules: config.edge.managedRules,
    });
    new CfnOutput(this, 'WebAclArn', { value: this.firewall.webAcl.attrArn });
  }
}
