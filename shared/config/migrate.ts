/** The migration function's environment: where the owner logs in, and the role it lets log in with IAM. */
export interface MigrateConfig {
  adminSecretArn: string;
  host: string;
  port: number;
  database: string;
  /** A plain identifier: it is written into a GRANT statement. */
  readerUser: string;
}

export function parseMigrateConfig(env: NodeJS.ProcessEnv = process.env): MigrateConfig {
  const need = (name: string): string => {
    const value = env[name];
    if (!value) throw new Error(`invalid configuration: ${name} is not set`);
    return value;
  };
  const port = Number(need('DB_PORT'));
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error('invalid configuration: DB_PORT is not a port number');
  const readerUser = need('READER_DB_USER');
  if (!/^[a-z_][a-z0-9_]*$/.test(readerUser)) throw new Error('invalid configuration: READER_DB_USER is not a plain identifier');
  return { adminSecretArn: need('ADMIN_SECRET_ARN'), host: need('DB_HOST'), port, database: need('DB_NAME'), readerUser };
}
