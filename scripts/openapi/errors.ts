import {
  AnalysisNotFound,
  ApiDisabled,
  type ApiError,
  CursorExpired,
  InternalError,
  InvalidRequest,
  KeyRevoked,
  MethodNotAllowed,
  NotFound,
  OriginNotAllowed,
  PlanRequired,
  RateLimited,
  RateLimitUnavailable,
  Unauthorized,
  UpstreamTimeout,
} from '#shared/errors.js';

export interface ErrorCode {
  code: string;
  status: number;
  /** The "When" of docs/contract.md#errors, as the document states it. */
  condition: string;
}

/**
 * docs/contract.md#errors, with status and code taken from the error classes the chain throws (so the
 * document cannot state a status the service does not send). Conditions are documentation, worded for a
 * client.
 */
const CATALOGUE: ReadonlyArray<[ApiError, string]> = [
  [new Unauthorized(), 'Authorization header missing or malformed (expected `Bearer geo_live_...`).'],
  [new KeyRevoked(), 'Key revoked, expired, or its creator lost access to the workspace. A new key is required.'],
  [new PlanRequired(), 'The workspace plan does not include the API. Nothing to fix in the client.'],
  [new AnalysisNotFound(), 'The analysis does not exist or is outside the reach of the key (both answer the same, on purpose).'],
  [new NotFound('run'), 'The group, run or answer does not exist in this analysis (or belongs to another one).'],
  [
    new InvalidRequest(''),
    'A value outside the rules of the read (unaccepted window, page bound out of range, from without to...), or an unknown or repeated query key; `param` names it.',
  ],
  [new CursorExpired(), 'The cursor was produced under another window, analysis or key. Restart without a cursor.'],
  [new RateLimited(1), 'The per-minute call budget of the workspace is exhausted. Wait Retry-After seconds.'],
  [new InternalError(), 'A fault on the service side. Retry once, then report the request id.'],
  [
    new RateLimitUnavailable(),
    'The budget counter or the check of the key reach failed, so the call was refused rather than served unguarded. Transient.',
  ],
  [
    new UpstreamTimeout(),
    'The measurement store did not answer in time; it sleeps after idle periods and takes about twenty seconds to wake. Retry once.',
  ],
  [new ApiDisabled(1), 'The whole API is switched off for everyone; Retry-After gives the delay.'],
  // Not in docs/contract.md#errors: what a known path answers under a method it does not take
  // (GET/DELETE /mcp).
  [new MethodNotAllowed(['GET']), 'The path exists, but not under this method; the Allow header lists the methods it takes.'],
  // Not in docs/contract.md#errors: POST /mcp from a web page whose Origin is not allowed (MCP transport
  // spec, DNS rebinding).
  [
    new OriginNotAllowed(),
    'The request carries an Origin header (a web page) that is not allowed to call the MCP endpoint. Server-side and local clients send none.',
  ],
];

export const ERROR_CODES: ReadonlyMap<string, ErrorCode> = new Map(
  CATALOGUE.map(([err, condition]) => [err.code, { code: err.code, status: err.status, condition }]),
);

/**
 * Codes every authenticated call can answer with, whatever the read (docs/contract.md#response-headers,
 * #authentication, #errors).
 */
export const COMMON_CODES = [
  'unauthorized',
  'key_revoked',
  'plan_required',
  'invalid_request',
  'rate_limited',
  'internal_error',
  'rate_limit_unavailable',
  'upstream_timeout',
  'api_disabled',
] as const;

export function errorCode(code: string): ErrorCode {
  const found = ERROR_CODES.get(code);
  if (!found) throw new Error(`error code "${code}" is not in the error catalogue (scripts/openapi/errors.ts)`);
  return found;
}
