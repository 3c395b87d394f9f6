import { noticeNodeVersion } from '../../local/node-notice.js';
import { closeBench } from './harness.js';

/**
 * `npm run bench [section ...]`: each section prints a markdown table whose figures go into
 * docs/performance.md. Sections run one after another so they do not disturb each other's timings.
 */
const sections: Record<string, () => Promise<{ default: () => Promise<string> }>> = {
  identity: () => import('./identity.bench.js'),
  figures: () => import('./figures.bench.js'),
  shaping: () => import('./shaping.bench.js'),
  catalog: () => import('./catalog.bench.js'),
  bundles: () => import('./bundles.bench.js'),
  client: () => import('./budget-client.bench.js'),
  overhead: () => import('./overhead.bench.js'),
  sizes: () => import('./sizes.bench.js'),
  mcp: () => import('./mcp-sizes.bench.js'),
  scale: () => import('./scale.bench.js'),
  tracing: () => import('./tracing.bench.js'),
};

noticeNodeVersion();
const wanted = process.argv.slice(2);
for (const [name, load] of Object.entries(sections)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n## ${name}\n`);
  const { default: run } = await load();
  console.log(await run());
}
await closeBench();
process.exit(0);
