import type { Duration } from 'aws-cdk-lib';
import { Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ReadDef } from '#shared/reads/types.js';
import { BASE_PATH } from '#shared/rest/paths.js';
import { DEFAULT_TARGET, type Target } from '#shared/rest/routes.js';

/** Every function behind the gateway (shared/rest/routes.ts): the read families, mcp and openapi. */
export type RouteTarget = Target;

export interface ReadApiProps {
  apiName: string;
  /** The read table: one GET route per read, sent to the function of its family. */
  reads: ReadonlyArray<Pick<ReadDef, 'name' | 'family' | 'path'>>;
  functions: Record<RouteTarget, lambda.IFunction>;
  integrationTimeout: Duration;
  throttleRatePerSecond: number;
  throttleBurst: number;
  logRetentionDays: number;
  domain?: { name: string; certificateArn: string } | undefined;
}

/** HEAD answers as GET without the body, from the same function (shared/rest/routes.ts). */
const READING = [apigwv2.HttpMethod.GET, apigwv2.HttpMethod.HEAD];

/**
 * HTTP API (payload 2.0), with the routes of shared/rest/routes.ts: one GET per read, GET /openapi.json and
 * POST /mcp (Streamable HTTP, stateless). Everything else takes the $default route to the openapi
 * function, which answers from the contract: 404 not_found for an unknown path, 405 method_not_allowed
 * with Allow for a known path under another method (GET or DELETE /mcp: Allow: POST), in the service's
 * envelope with X-Request-Id, never API Gateway's bare {"message":"Not Found"}. That function reads
 * nothing and writes nothing, so the catch-all opens no write path.
 */
export class ReadApi extends Construct {
  readonly api: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;
  readonly accessLogs: logs.LogGroup;
  readonly domainName?: apigwv2.DomainName;

  constructor(scope: Construct, id: string, props: ReadApiProps) {
    super(scope, id);

    const integrations = Object.fromEntries(
      (Object.entries(props.functions) as Array<[RouteTarget, lambda.IFunction]>).map(([target, fn]) => [
        target,
        new HttpLambdaIntegration(`${target}-integration`, fn, {
          payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0,
          timeout: props.integrationTimeout,
        }),
      ]),
    ) as Record<RouteTarget, HttpLambdaIntegration>;

    this.api = new apigwv2.HttpApi(this, 'Api', {
      apiName: props.apiName,
      description: 'Read-only measurement API (REST + MCP)',
      // Our own $default stage below carries throttling and access logs; the implicit one has neither.
      createDefaultStage: false,
      // The $default route: whatever no route below takes.
      defaultIntegration: integrations[DEFAULT_TARGET],
    });

    for (const read of props.reads) {
      this.api.addRoutes({ path: `${BASE_PATH}${read.path}`, methods: READING, integration: integrations[read.family] });
    }
    this.api.addRoutes({ path: `${BASE_PATH}/openapi.json`, methods: READING, integration: integrations.openapi });
    this.api.addRoutes({ path: `${BASE_PATH}/mcp`, methods: [apigwv2.HttpMethod.POST], integration: integrations.mcp });

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: props.logRetentionDays as logs.RetentionDays });
    const domainName = (this.domainName = props.domain
      ? new apigwv2.DomainName(this, 'Domain', {
          domainName: props.domain.name,
          certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn),
        })
      : undefined);

    this.stage = new apigwv2.HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      // A backstop for the account and the database, far above any key's budget (which the functions enforce).
      throttle: { rateLimit: props.throttleRatePerSecond, burstLimit: props.throttleBurst },
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            routeKey: '$context.routeKey',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            responseLatency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            userAgent: '$context.identity.userAgent',
          }),
        ),
      },
      ...(domainName ? { domainMapping: { domainName } } : {}),
    });

    // Acknowledged on the API, so it covers each of its routes.
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Authorization is the API key (Bearer geo_live_...) checked by the function itself, which must also answer the per-key budget and the 401/403 bodies of the contract; /openapi.json is public by design.',
    });
  }
}
