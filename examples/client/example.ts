/**
 * A typed client on the types generated from openapi/openapi.json: openapi-typescript writes them (by
 * `npm run openapi`) into the TypeScript client's package, which exports them as `paths`; openapi-fetch
 * does the calls. `tsc --noEmit` checks this file against the generated types, so a contract change that
 * breaks clients breaks the build first. Imported here from the package's sources so that no build is
 * needed; elsewhere it is `import type { paths } from '@geo-api/client'`.
 *
 * Run against `npm start` (or a deployed stage): the base address and the key from the environment, as
 * `npm start` prints them (and writes them to .local/demo.json):
 *   GEO_BASE_URL=http://127.0.0.1:<port>/api/v1 GEO_API_KEY=geo_live_... npx tsx examples/client/example.ts
 */
import createClient from 'openapi-fetch';
import type { paths } from '../../clients/typescript/src/index.js';

// No default address: the port of a local stack, or the host of a stage, is the caller's to say.
const baseUrl = process.env.GEO_BASE_URL;
if (!baseUrl) throw new Error('set GEO_BASE_URL to the base address, ending with /api/v1 (npm start prints it)');
const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${process.env.GEO_API_KEY ?? ''}` } });

async function main(): Promise<void> {
  const me = await client.GET('/me');
  if (me.error) throw new Error(`${me.error.error.code}: ${me.error.error.message}`);
  console.log(
    `key ${me.data.key.prefix}… of ${me.data.workspace.name}: ${me.data.rate_limit.remaining}/${me.data.rate_limit.per_minute} calls left`,
  );

  const page = await client.GET('/analyses', { params: { query: { limit: 10 } } });
  if (page.error) throw new Error(page.error.error.code);
  const first = page.data.items[0];
  if (!first) return console.log('this key reaches no analysis');

  const analysis = await client.GET('/analyses/{analysis}', { params: { path: { analysis: first.slug } } });
  // The error codes are typed per status: here a union of the codes the document lists for this read.
  if (analysis.error) throw new Error(analysis.error.error.code);
  const run = analysis.data.latest_run;
  console.log(
    `${analysis.data.name} tracks ${analysis.data.brand.name} on ${analysis.data.engines.length} engines; latest run: ${run ? run.state : 'none'}`,
  );

  const metrics = await client.GET('/analyses/{analysis}/metrics', {
    params: { path: { analysis: first.slug }, query: { window: '30d' } },
  });
  if (metrics.error) throw new Error(metrics.error.error.code);
  console.log(JSON.stringify(metrics.data, null, 2));
}

await main();
