import { checkServerIdentity } from 'node:tls';
import type pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';

/**
 * The owner connection of the administration CLI and the pipeline examples, from DATABASE_URL.
 *
 * One addition to what `pg` understands: `hostaddr`, as in libpq. Through a tunnel the server is reached at
 * 127.0.0.1:<local port>, but its certificate names the cluster endpoint. With
 * `postgres://geo_admin@<ClusterEndpoint>:15432/geo?hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert=global-bundle.pem`
 * the connection goes to hostaddr and the certificate is still verified against the host name, so
 * verify-full keeps its meaning; psql reads the same parameters. Without hostaddr the URL is used as is.
 */
export function adminClientConfig(url: string): pg.ClientConfig {
  const { hostaddr, ...config } = parseIntoClientConfig(url) as pg.ClientConfig & { hostaddr?: string };
  if (!hostaddr) return config;
  const name = config.host;
  if (!name) throw new Error('DATABASE_URL: hostaddr needs a host name to verify the certificate against');
  const ssl = typeof config.ssl === 'object' && config.ssl !== null ? config.ssl : undefined;
  return {
    ...config,
    host: hostaddr,
    ...(ssl
      ? {
          ssl: {
            ...ssl,
            // Checked against the name in the URL, not against the address the tunnel listens on.
            servername: name,
            checkServerIdentity: (_host: string, cert: Parameters<typeof checkServerIdentity>[1]) => checkServerIdentity(name, cert),
          },
        }
      : {}),
  };
}
