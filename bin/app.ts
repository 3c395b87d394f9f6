import { App } from 'aws-cdk-lib';
import { reads } from '#shared/reads/registry.js';
import { StageConfigError } from '../lib/config.js';
import { buildService } from '../lib/service.js';

// The stage and all of its settings come from context: `-c stage=prod`, cdk.json `stages.prod`.
const app = new App();
try {
  buildService(app, reads);
  app.synth();
} catch (err) {
  if (!(err instanceof StageConfigError)) throw err;
  // A setting to change, not a fault of the app: its one line (naming the key) and nothing else.
  process.stderr.write(`${err.message}\n`);
  process.exitCode = 1;
}
