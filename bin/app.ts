import { App } from 'aws-cdk-lib';
import { reads } from '#shared/reads/registry.js';
import { buildService } from '../lib/service.js';

// The stage and all of its settings come from context: `-c stage=prod`, cdk.json `stages.prod`.
const app = new App();
buildService(app, reads);
app.synth();
