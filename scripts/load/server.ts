/**
 * One local API process standing in for one Lambda instance, for scripts/load/run.ts. It reports its
 * resident memory every second on stdout (one JSON line), so the parent can watch for growth.
 * Env: LOAD_READER_URL, LOAD_DYNAMODB_ENDPOINT, LOAD_BUDGET_TABLE, LOAD_PORT, PLAN_CEILINGS.
 */
import { localConfig, startApi } from '../../local/stack.js';

const cfg = localConfig(process.env.LOAD_READER_URL as string, process.env.LOAD_DYNAMODB_ENDPOINT, {
  BUDGET_TABLE: process.env.LOAD_BUDGET_TABLE as string,
  LOG_LEVEL: 'SILENT',
  DB_POOL_MAX: process.env.DB_POOL_MAX ?? '8',
});
const api = await startApi(cfg, Number(process.env.LOAD_PORT ?? 0));
const report = (extra: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ pid: process.pid, url: api.url, rss: process.memoryUsage().rss, ...extra })}\n`);
report({ ready: true });
const timer = setInterval(() => report(), 1000);
const stop = async () => {
  clearInterval(timer);
  await api.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
