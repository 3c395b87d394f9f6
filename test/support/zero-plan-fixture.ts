import type { Queryable } from '../../shared/store/queryable.js';
import { seedFixtureWorkspace } from './fixture-workspace.js';

/**
 * A workspace whose plan, in the plans table itself, includes the API with a ceiling of 0 calls a minute
 * (no PLAN_CEILINGS override): one owner, one analysis, one workspace key.
 */
export const ZERO_PLAN_SECRET = 'geo_live_ZeroPlanFixtureKey000000000000000000000';
export const ZERO_PLAN_ANALYSIS = 'zero-plan';

const u = (kind: number, n: number) => `d${kind.toString(16).padStart(7, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export async function seedZeroPlanFixture(db: Queryable): Promise<void> {
  await seedFixtureWorkspace(db, {
    ids: { workspace: u(1, 1), user: u(2, 1), brand: u(3, 1), analysis: u(4, 1), key: u(10, 1) },
    plan: { key: 'zero_calls', label: 'API, no calls', callsPerMinute: 0 },
    workspace: { name: 'Zero plan', slug: 'zero-plan-fixture' },
    owner: { email: 'owner@zero.test', name: 'Zero owner' },
    brand: { name: 'Zed', domain: 'zed.example' },
    analysis: { slug: ZERO_PLAN_ANALYSIS, name: 'Zed: never collected' },
    secret: ZERO_PLAN_SECRET,
    keyName: 'Zero plan',
  });
}
