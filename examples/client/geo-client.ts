/**
 * The same walk as example.ts on the package of this repository, `@geo-api/client` (clients/typescript):
 * one method per read, every answer of an analysis through `paginate`, the typed error, the budget.
 * Imported here from its sources so that `tsc --noEmit` checks the example without a build; elsewhere it is
 * `import { createClient, GeoApiError } from '@geo-api/client'`.
 *
 * Run against `npm start`: GEO_BASE_URL=http://127.0.0.1:<port>/api/v1 GEO_API_KEY=geo_live_... npx tsx examples/client/geo-client.ts
 */
import { createClient, GeoApiError } from '../../clients/typescript/src/index.js';

const geo = createClient({
  onRetry: ({ read, attempt, delayMs, error }) => console.warn(`${read}: ${error.code}, retry ${attempt} in ${delayMs} ms`),
});

async function main(): Promise<void> {
  const me = await geo.getMe();
  console.log(`key ${me.key.prefix}… of ${me.workspace.name}: ${me.rate_limit.remaining}/${me.rate_limit.per_minute} calls left`);

  const page = await geo.listAnalyses({ limit: 10 });
  const first = page.items[0];
  if (!first) return console.log('this key reaches no analysis');

  const metrics = await geo.getMetrics({ analysis: first.slug, window: '30d' });
  const { visibility } = metrics.metrics;
  console.log(
    `${first.name}: visibility ${visibility.value ?? 'n/a'} (95% ${visibility.ci95 ? `${visibility.ci95.low}..${visibility.ci95.high}` : 'n/a'})`,
  );

  const engines = new Map<string, number>();
  for await (const answer of geo.paginate('listAnswers', { analysis: first.slug, window: '30d' })) {
    engines.set(answer.engine, (engines.get(answer.engine) ?? 0) + 1);
  }
  console.log('answers in 30 days by engine:', Object.fromEntries(engines));

  try {
    await geo.getRun({ analysis: first.slug, run: '00000000-0000-4000-8000-000000000000' });
  } catch (error) {
    if (!(error instanceof GeoApiError) || error.code !== 'not_found') throw error;
    console.log(`no such run (${error.code}, request ${error.requestId})`);
  }
  console.log('budget now:', geo.rateLimit);
}

await main();
