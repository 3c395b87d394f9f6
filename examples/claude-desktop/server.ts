import { settingsFromEnv, startBridge } from './bridge.js';

/**
 * The extension's entry point (scripts/mcpb/build.ts bundles it into server/index.mjs). Claude Desktop
 * starts it with the settings in its environment (manifest.json, mcp_config.env) and keeps what it
 * writes on stderr in the extension's log.
 */
await startBridge(settingsFromEnv(process.env), {
  stdin: process.stdin,
  stdout: process.stdout,
  log: (line) => process.stderr.write(`geo-measurement: ${line}\n`),
});
