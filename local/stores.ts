import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import dynalite from 'dynalite';
import pg from 'pg';
import { type DemoManifest, seedDemo } from '#shared/admin/demo.js';
import { migrate } from '#shared/admin/migrate.js';
import type { Queryable } from '#shared/store/queryable.js';
import { EMBEDDED_OWNER } from './owner-session.js';
import { queryableOf } from './pglite.js';

export const READER_ROLE = 'geo_reader';

export interface LocalStore {
  /** Connection string of the service's read-only role. */
  readerUrl: string;
  /**
   * Embedded only: where an operator connects (the admin CLI, through local/owner-session.ts, while
   * npm start runs). A server's owner connection is the DATABASE_URL it was started with.
   */
  ownerUrl?: string;
  manifest: DemoManifest | undefined;
  kind: 'embedded' | 'server';
  /** Embedded, when asked for (StoreOptions.snapshot): the store as seeded, before `extra`. */
  snapshot?: DemoSnapshot;
  close(): Promise<void>;
}

/**
 * An embedded store dumped once migrated and seeded (PGlite's data directory as a tar), with the
 * manifest its seed returned: another embedded store starts from it without migrating and seeding
 * again.
 */
export interface DemoSnapshot {
  data: Blob;
  manifest: DemoManifest;
}

export interface StoreOptions {
  /** An owner connection to a real PostgreSQL server; absent: embedded PGlite. */
  adminUrl?: string | undefined;
  /** Seed the demo (on a server: wipe the data tables first). Always true for embedded. */
  seed?: boolean;
  endDate?: string;
  /** Extra data written with the owner role before the service role takes over (test fixtures). */
  extra?: (db: Queryable) => Promise<void>;
  /** Embedded: start from this dump instead of migrating and seeding (written by the same code). */
  from?: DemoSnapshot;
  /** Embedded: dump the store once seeded, before `extra` (LocalStore.snapshot). */
  snapshot?: boolean;
}

const DATA_TABLES = [
  'citations',
  'mentions',
  'answers',
  'run_engines',
  'runs',
  'prompts',
  'prompt_groups',
  'competitors',
  'api_keys',
  'analyses',
  'members',
  'brands',
  'users',
  'workspaces',
  'plans',
  'engines',
];

async function wipeAndSeed(db: Queryable, opts: StoreOptions): Promise<DemoManifest> {
  const existing = (await db.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public'`)).rows.map((r) => r.t);
  const rollups = existing.filter((t) => !DATA_TABLES.includes(t) && t !== 'schema_migrations');
  await db.query(`TRUNCATE ${[...DATA_TABLES, ...rollups].join(', ')} CASCADE`);
  return seedDemo(db, opts.endDate ? { endDate: opts.endDate } : {});
}

/** PGlite speaks the same protocol through its socket server, so the same `pg` code runs. */
async function startEmbedded(opts: StoreOptions): Promise<LocalStore> {
  const lite = opts.from ? await PGlite.create({ loadDataDir: opts.from.data }) : await PGlite.create();
  const db = queryableOf(lite);
  let manifest: DemoManifest;
  if (opts.from) manifest = opts.from.manifest;
  else {
    await migrate(db);
    manifest = await seedDemo(db, opts.endDate ? { endDate: opts.endDate } : {});
  }
  const snapshot = opts.snapshot ? { data: await lite.dumpDataDir('none'), manifest } : undefined;
  if (opts.extra) await opts.extra(db);
  // PGlite is one backend shared by every socket connection: from here on, that backend acts as the
  // read-only role, so the service's connections really are denied writes by the database.
  await lite.exec(`SET ROLE ${READER_ROLE}`);
  const server = new PGLiteSocketServer({ db: lite, host: '127.0.0.1', port: 0, maxConnections: 64 });
  await server.start();
  const conn = server.getServerConn();
  return {
    readerUrl: `postgres://${READER_ROLE}@${conn}/postgres?sslmode=disable`,
    ownerUrl: `postgres://${EMBEDDED_OWNER}@${conn}/postgres?sslmode=disable`,
    manifest,
    kind: 'embedded',
    ...(snapshot ? { snapshot } : {}),
    close: async () => {
      await server.stop();
      await lite.close();
    },
  };
}

export function withUser(url: string, user: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = '';
  return u.toString();
}

async function startServer(adminUrl: string, opts: StoreOptions): Promise<LocalStore> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await migrate(admin);
    const manifest = opts.seed ? await wipeAndSeed(admin, opts) : undefined;
    if (opts.extra) await opts.extra(admin);
    return { readerUrl: withUser(adminUrl, READER_ROLE), manifest, kind: 'server', close: async () => undefined };
  } finally {
    await admin.end();
  }
}

export function startStore(opts: StoreOptions = {}): Promise<LocalStore> {
  return opts.adminUrl ? startServer(opts.adminUrl, opts) : startEmbedded(opts);
}

export interface LocalBudgetStore {
  endpoint: string;
  createTable(name: string): Promise<void>;
  close(): Promise<void>;
}

/** dynalite: a DynamoDB-protocol server in process, for the budget counter. */
export async function startBudgetStore(port = 0): Promise<LocalBudgetStore> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    createTable: (name) => createBudgetTable(endpoint, name),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function createBudgetTable(endpoint: string, name: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
  } finally {
    client.destroy();
  }
}
