import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/** Name of the expiry attribute (epoch seconds) the functions write on every counter item. */
export const BUDGET_TTL_ATTRIBUTE = 'expires_at';

/**
 * One item per workspace per minute, bumped by a conditional UpdateItem. Counters are worthless after
 * their minute, so TTL sweeps them; on-demand billing follows the traffic with no capacity to plan.
 */
export class BudgetTable extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: BUDGET_TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // AWS-managed key: encrypted at rest, and callers need no KMS grant of their own.
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
    });
  }

  /** The only call the service makes: ADD to the minute's counter under a ceiling condition. */
  grantConsume(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({ grantee, actions: ['dynamodb:UpdateItem'], resourceArns: [this.table.tableArn] });
  }
}
