import type { MiddlewareObj } from '@middy/core';
import { ApiDisabled } from '../errors.js';

export interface ApiSwitch {
  disabled: boolean;
  retryAfter: number;
}

/**
 * API_DISABLED (true|false, default false) and API_DISABLED_RETRY_AFTER (whole seconds ≥ 1, default
 * 300). Parsed here without zod, so the OpenAPI function, which has no other configuration, reads the
 * switch the same way as the others without loading the contracts library. A malformed value fails
 * the cold start rather than guessing whether the API is on.
 */
export function apiSwitchFromEnv(env: NodeJS.ProcessEnv = process.env): ApiSwitch {
  const disabled = env.API_DISABLED ?? 'false';
  const retryAfter = env.API_DISABLED_RETRY_AFTER ?? '300';
  if (disabled !== 'true' && disabled !== 'false') throw new Error('invalid configuration: API_DISABLED must be true or false');
  if (!/^[1-9]\d*$/.test(retryAfter)) throw new Error('invalid configuration: API_DISABLED_RETRY_AFTER must be a whole number of seconds ≥ 1');
  return { disabled: disabled === 'true', retryAfter: Number(retryAfter) };
}

/** The operator's kill switch: checked before anything else, so a disabled API touches no store. */
export function apiSwitchMiddleware(opts: ApiSwitch): MiddlewareObj {
  return {
    name: 'api-switch',
    before: () => {
      if (opts.disabled) throw new ApiDisabled(opts.retryAfter);
    },
  };
}
