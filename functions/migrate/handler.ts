import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { migrateHandler } from '#shared/admin/migrate-function.js';
import { parseMigrateConfig } from '#shared/config/migrate.js';

export const handler = migrateHandler({ config: parseMigrateConfig(), secrets: new SecretsManagerClient({}) });
