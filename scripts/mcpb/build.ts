import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { reads } from '#shared/reads/registry.js';

/**
 * Builds the Claude Desktop extension (`npm run mcpb`): the bridge of examples/claude-desktop bundled by
 * esbuild into one file, so the extension carries no node_modules, next to its manifest, checked with
 * `mcpb validate` and packed with `mcpb pack` into dist/<name>-<version>.mcpb.
 *
 *   npm run mcpb                                                  # endpoint default: the local stack
 *   npm run mcpb -- --endpoint https://api.example.com/api/v1/mcp # the default a deployment ships with
 *   npm run mcpb -- --out-dir /tmp/x                              # elsewhere than dist/
 *   npm run mcpb -- --repository https://github.com/o/r.git       # the source's address (default: git's origin)
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCE = join(ROOT, 'examples', 'claude-desktop');
const MCPB = join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
const run = promisify(execFile);

export interface BuiltExtension {
  /** The packed extension. */
  mcpb: string;
  /** The directory it was packed from: manifest.json and server/index.mjs. */
  staged: string;
  manifest: Manifest;
  bytes: number;
}

interface Manifest {
  name: string;
  version: string;
  icon: string;
  repository?: { type: string; url: string };
  homepage?: string;
  support?: string;
  server: { entry_point: string };
  user_config: { endpoint: { default: string } } & Record<string, unknown>;
  [key: string]: unknown;
}

/** Runs the mcpb CLI (the same code Claude Desktop uses to read a manifest); its output on failure. */
async function mcpb(...args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(process.execPath, [MCPB, ...args], { cwd: ROOT });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`mcpb ${args[0]} failed: ${e.stdout ?? ''}${e.stderr ?? ''}`.trim() || e.message);
  }
}

/**
 * The repository's address as a manifest gives it: `repository` (git) and `homepage` and `support` (its
 * web page and issues), from an https git address or GitHub's ssh form; undefined when there is none.
 */
export function sourceAddress(repository: string | undefined): Pick<Manifest, 'repository' | 'homepage' | 'support'> | undefined {
  if (!repository) return undefined;
  const ssh = /^git@([^:]+):(.+?)(?:\.git)?$/.exec(repository);
  let web: URL;
  try {
    web = new URL(ssh ? `https://${ssh[1]}/${ssh[2]}` : repository.replace(/\.git$/, ''));
  } catch {
    return undefined;
  }
  if (web.protocol !== 'https:') return undefined;
  // Shown in the install dialog and kept in the file: the address alone, never a user or token of git's.
  const page = `${web.origin}${web.pathname}`;
  return { repository: { type: 'git', url: `${page}.git` }, homepage: page, support: `${page}/issues` };
}

/** git's origin of this checkout, when it has one. */
async function origin(): Promise<string | undefined> {
  try {
    return (await run('git', ['remote', 'get-url', 'origin'], { cwd: ROOT })).stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

export async function buildExtension(opts: { outDir?: string; endpoint?: string; repository?: string } = {}): Promise<BuiltExtension> {
  const outDir = resolve(opts.outDir ?? join(ROOT, 'dist'));
  const staged = join(outDir, 'claude-desktop');
  await rm(staged, { recursive: true, force: true });
  await mkdir(staged, { recursive: true });

  const manifest = JSON.parse(await readFile(join(SOURCE, 'manifest.json'), 'utf8')) as Manifest;
  // The schema path is for editors of the source; it means nothing inside the extension.
  delete manifest.$schema;
  // One version for the package and the extension Claude Desktop shows and updates by.
  manifest.version = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const source = sourceAddress(opts.repository ?? (await origin()));
  if (opts.repository && !source) throw new Error('--repository takes the https address of the repository (or git@host:owner/repo)');
  Object.assign(manifest, source);
  if (opts.endpoint) {
    const endpoint = new URL(opts.endpoint);
    // The default is shown to everyone who installs the file; the bridge would refuse it anyway.
    if (endpoint.username || endpoint.password)
      throw new Error('--endpoint takes the address alone, without user:password@ or a key before the host');
    manifest.user_config.endpoint.default = endpoint.href;
  }
  // Shown in Claude Desktop's install dialog; taken from the read table so it lists exactly the tools served.
  manifest.tools = reads.map((read) => ({ name: read.name, description: read.summary }));
  await writeFile(join(staged, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await copyFile(join(SOURCE, manifest.icon), join(staged, manifest.icon));

  await build({
    entryPoints: [join(SOURCE, 'server.ts')],
    outfile: join(staged, manifest.server.entry_point),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    legalComments: 'eof',
    // Bundled CommonJS dependencies call require() for Node's builtins, which an ES module lacks.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });

  await mcpb('validate', join(staged, 'manifest.json'));
  const file = join(outDir, `${manifest.name}-${manifest.version}.mcpb`);
  await mcpb('pack', staged, file);
  return { mcpb: file, staged, manifest, bytes: (await stat(file)).size };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const option = (name: string, example: string): string | undefined => {
    const at = process.argv.indexOf(name);
    if (at === -1) return undefined;
    const value = process.argv[at + 1];
    if (!value || value.startsWith('--')) throw new Error(`${name} takes a value, e.g. ${name} ${example}`);
    return value;
  };
  const built = await buildExtension({
    endpoint: option('--endpoint', 'https://api.example.com/api/v1/mcp'),
    outDir: option('--out-dir', 'dist'),
    repository: option('--repository', 'https://github.com/owner/repo.git'),
  });
  console.log(
    `${relative(ROOT, built.mcpb)}: ${built.bytes} bytes, endpoint default ${built.manifest.user_config.endpoint.default}. Open it with Claude Desktop to install (docs/hosts/claude-desktop.md).`,
  );
  if (!built.manifest.repository)
    console.log('No repository in the manifest: this checkout has no git origin; give --repository <https address>.');
}
