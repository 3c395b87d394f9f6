// Plays the Lambda Node.js runtime for one invocation, in a plain `node` process (no tsx, no jest):
// imports the handler the template names (`index.handler` -> index.mjs / index.js in the task root),
// reads the event on stdin, calls the handler with a context, writes {ok, result, cpuMs} or {ok: false,
// errorType, errorMessage, cpuMs} on file descriptor 3 (stdout and stderr stay the function's logs), and exits,
// as the execution environment would freeze.
import { randomUUID } from 'node:crypto';
import { existsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [taskRoot, handlerSpec, timeoutSeconds] = process.argv.slice(2);
const dot = handlerSpec.lastIndexOf('.');
const file = handlerSpec.slice(0, dot);
const name = handlerSpec.slice(dot + 1);
const deadline = Date.now() + Number(timeoutSeconds) * 1000;

// cpuMs: the process's CPU time (user + system), cold start included: the function's own share of a
// call's time, which Lambda's fraction of a vCPU stretches and the database's work does not.
function reply(value) {
  const cpu = process.cpuUsage();
  writeSync(3, JSON.stringify({ ...value, cpuMs: Math.round((cpu.user + cpu.system) / 1000) }));
  process.exit(0);
}

let input = '';
// Decoded by the stream: a character split across two chunks of a large event stays whole.
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
try {
  const path = ['.mjs', '.js', '.cjs'].map((ext) => join(taskRoot, file + ext)).find((p) => existsSync(p));
  if (!path) throw new Error(`Runtime.ImportModuleError: no ${file}.mjs/.js/.cjs in ${taskRoot}`);
  const mod = await import(pathToFileURL(path).href);
  if (typeof mod[name] !== 'function') throw new Error(`Runtime.HandlerNotFound: ${handlerSpec}`);
  const context = {
    awsRequestId: randomUUID(),
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    callbackWaitsForEmptyEventLoop: false,
  };
  const result = await mod[name](JSON.parse(input), context);
  // Lambda's runtime posts the result to the Runtime API over HTTP, so the event loop turns at least once
  // before the environment freezes: what the handler queued for its next tick (the X-Ray SDK's UDP send
  // of the last subsegment) leaves then. One turn here stands in for that post.
  await new Promise((resolve) => setImmediate(resolve));
  reply({ ok: true, result });
} catch (err) {
  reply({ ok: false, errorType: err?.name ?? 'Error', errorMessage: err?.message ?? String(err) });
}
