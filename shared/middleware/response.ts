import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** What API Gateway (HTTP API, payload 2.0) hands a function, and what it takes back. */
export type Event = APIGatewayProxyEventV2;
export type Result = APIGatewayProxyStructuredResultV2;

/** A JSON response; the response-headers step adds the headers every response carries. */
export function jsonResponse(status: number, body: unknown): Result {
  return { statusCode: status, headers: {}, body: JSON.stringify(body) };
}
