/**
 * Real assistant hosts (Claude Code, Gemini CLI, Codex CLI) between the local API and a stand-in for their
 * model API on the loopback interface (files ending in .host.ts). `npm run test:hosts` runs them apart from
 * `npm test`: each host is a large program that starts once per session, and what they test is the hosts'
 * behaviour as much as ours. The hosts are pinned in test/hosts/pinned (package.json and lockfile),
 * installed there by the script's first step (test/hosts/prefix.ts), never by the root
 * install. The global setup is the suite's: the demo stores.
 */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/test/hosts/**/*.host.ts'],
  testTimeout: 240000,
  maxWorkers: 2,
};
