import { CfnResource } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Tells cfn-lint to skip one rule on one resource (Metadata.cfn-lint.config.ignore_checks), for a finding
 * the construct makes on purpose; the reason belongs in a comment where this is called.
 */
export function ignoreLintRule(scope: IConstruct, rule: string): void {
  const resource = (CfnResource.isCfnResource(scope) ? scope : scope.node.defaultChild) as CfnResource;
  const current = (resource.getMetadata('cfn-lint') as { config?: { ignore_checks?: string[] } } | undefined)?.config?.ignore_checks ?? [];
  resource.addMetadata('cfn-lint', { config: { ignore_checks: [...new Set([...current, rule])] } });
}
