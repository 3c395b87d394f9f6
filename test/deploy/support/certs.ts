import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Certificates {
  dir: string;
  /** The CA that signs both servers: what the functions must trust (NODE_EXTRA_CA_CERTS). */
  caFile: string;
  server(name: string): { cert: string; key: string };
}

/**
 * A private CA and one server certificate per name, made with the `openssl` CLI at test time (nothing
 * is committed): `sans` are subjectAltName entries such as `IP:127.31.7.9` or `DNS:db.example`.
 */
export async function makeCertificates(servers: Record<string, string[]>): Promise<Certificates> {
  const dir = await mkdtemp(join(tmpdir(), 'geo-rehearsal-tls-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const caFile = join(dir, 'ca.pem');
  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    join(dir, 'ca.key'),
    '-out',
    caFile,
    '-days',
    '2',
    '-subj',
    '/CN=Rehearsal stand-in CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const made: Record<string, { cert: string; key: string }> = {};
  for (const [name, sans] of Object.entries(servers)) {
    const key = join(dir, `${name}.key`);
    const csr = join(dir, `${name}.csr`);
    const cert = join(dir, `${name}.pem`);
    const ext = join(dir, `${name}.ext`);
    await writeFile(
      ext,
      `subjectAltName=${sans.join(',')}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`,
    );
    await run('openssl', ['req', ...ec, '-keyout', key, '-out', csr, '-subj', `/CN=${name}`]);
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      caFile,
      '-CAkey',
      join(dir, 'ca.key'),
      '-CAcreateserial',
      '-out',
      cert,
      '-days',
      '2',
      '-extfile',
      ext,
    ]);
    made[name] = { cert, key };
  }
  return {
    dir,
    caFile,
    server: (name) => {
      const s = made[name];
      if (!s) throw new Error(`no certificate made for ${name}`);
      return s;
    },
  };
}
