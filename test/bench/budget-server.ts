/**
 * dynalite in a process of its own, so the budget counter's CPU is not the API's and can be read apart.
 * Prints one JSON line {endpoint, pid} when listening.
 */
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { createBudgetTable } from '../../local/stores.js';

const server = dynalite({ createTableMs: 0, deleteTableMs: 0 });
server.listen(0, '127.0.0.1', () => {
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  void createBudgetTable(endpoint, process.env.BUDGET_TABLE ?? 'geo-budget').then(() =>
    process.stdout.write(`${JSON.stringify({ endpoint, pid: process.pid })}\n`),
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
