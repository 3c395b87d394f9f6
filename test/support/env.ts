// Request logs stay quiet in test output unless asked for (LOG_LEVEL=INFO npm test).
process.env.LOG_LEVEL ??= 'SILENT';
