import type { Queryable } from '../../shared/store/queryable.js';
import { seedCrowdFixture } from './crowd-fixture.js';
import { seedFiguresFixture } from './figures-fixture.js';
import { seedHistoryFixture } from './history-fixture.js';
import { seedZeroPlanFixture } from './zero-plan-fixture.js';

/**
 * Small hand-built datasets written next to the demo before the service role takes over.
 * Each entry owns its own workspace, so figures computed by hand are not disturbed by the demo.
 */
const fixtures: Array<(db: Queryable) => Promise<void>> = [seedFiguresFixture, seedHistoryFixture, seedCrowdFixture, seedZeroPlanFixture];

export async function seedFixtures(db: Queryable): Promise<void> {
  for (const fixture of fixtures) await fixture(db);
}
