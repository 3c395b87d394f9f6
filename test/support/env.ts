import { quietSdkNodeWarning } from '../../local/node-notice.js';

// Request logs stay quiet in test output unless asked for (LOG_LEVEL=INFO npm test).
process.env.LOG_LEVEL ??= 'SILENT';
// The machines run Node 20 on purpose (and CI also runs Node 24); the SDK's notice about it is noise here.
quietSdkNodeWarning();
