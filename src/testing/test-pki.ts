import { X509Certificate } from 'node:crypto';
import { lstat, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCertificate, generateCertificateAuthority } from '../apiserver/pki/issue-certificate.js';
import { ADMIN_GROUP, ADMIN_USER, type CertificateKeyPair } from '../apiserver/pki/pki.js';

/** Certificates for loopback test servers: a CA, a serving certificate and the admin client certificate. */
export interface TestPki {
  ca: CertificateKeyPair;
  serving: CertificateKeyPair;
  admin: CertificateKeyPair;
}

/** Certificates closer than this to expiry are made again. */
const RENEW_BEFORE_MS = 24 * 60 * 60 * 1000;

let shared: Promise<TestPki> | undefined;

/**
 * One set of certificates per process, kept between processes in a file of
 * the user's own in the temp directory (`SKIFF_TESTING_PKI` names another;
 * `''` turns the file off): generating keys is the slowest part of a cold
 * start, and test servers only ever serve loopback to their own tests.
 */
export function testPki(file = process.env.SKIFF_TESTING_PKI ?? defaultFile()): Promise<TestPki> {
  shared ??= loadTestPki(file).catch((err: unknown) => {
    shared = undefined;
    throw err;
  });
  return shared;
}

function defaultFile(): string {
  return join(tmpdir(), `skiff-testing-pki-${process.getuid?.() ?? 'user'}.json`);
}

/** The certificates in `file` if usable there, else new ones (written to `file`; `''`: no file). */
export async function loadTestPki(file: string): Promise<TestPki> {
  const cached = file ? await readCached(file) : undefined;
  if (cached) return cached;
  const pki = await generate();
  if (file) await writeCached(file, pki).catch(() => undefined);
  return pki;
}

/** The file's certificates if it is ours, private, well formed and not about to expire. */
async function readCached(file: string): Promise<TestPki | undefined> {
  try {
    const st = await lstat(file);
    if (!st.isFile() || (process.getuid && st.uid !== process.getuid()) || (st.mode & 0o077) !== 0) return undefined;
    const pki = JSON.parse(await readFile(file, 'utf8')) as TestPki;
    for (const pair of [pki.ca, pki.serving, pki.admin]) {
      if (typeof pair?.certPem !== 'string' || typeof pair.keyPem !== 'string') return undefined;
      if (Date.parse(new X509Certificate(pair.certPem).validTo) - Date.now() < RENEW_BEFORE_MS) return undefined;
    }
    return pki;
  } catch {
    return undefined;
  }
}

async function writeCached(file: string, pki: TestPki): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(pki), { mode: 0o600, flag: 'wx' });
  await rename(tmp, file);
}

async function generate(): Promise<TestPki> {
  const ca = await generateCertificateAuthority('skiff-testing-ca');
  const [serving, admin] = await Promise.all([
    issueCertificate(ca, { commonName: 'skiff-apiserver', hosts: ['localhost', '127.0.0.1', '::1'], usages: ['serverAuth'] }),
    issueCertificate(ca, { commonName: ADMIN_USER, organizations: [ADMIN_GROUP], usages: ['clientAuth'] }),
  ]);
  return { ca, serving, admin };
}
