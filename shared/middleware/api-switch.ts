import type { MiddlewareObj } from '@middy/core';
import { ApiDisabled } from '../errors.js';

/** The operator's kill switch: checked before anything else, so a disabled API touches no store. */
export function apiSwitchMiddleware(opts: { disabled: boolean; retryAfter: number }): MiddlewareObj {
  return {
    name: 'api-switch',
    before: () => {
      if (opts.disabled) throw new ApiDisabled(opts.retryAfter);
    },
  };
}
