import type { MiddlewareObj } from '@middy/core';
import type { ApiSwitch } from '../config/base.js';
import { ApiDisabled } from '../errors.js';

/** The operator's kill switch: checked before anything else, so a disabled API touches no store. */
export function apiSwitchMiddleware(opts: ApiSwitch): MiddlewareObj {
  return {
    name: 'api-switch',
    before: () => {
      if (opts.disabled) throw new ApiDisabled(opts.retryAfter);
    },
  };
}
