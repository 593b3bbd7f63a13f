import { mkdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isIP } from 'node:net';
import { x509 as loadX509 } from './x509.js';
import type * as X509 from './x509.js';
import { generateCertificateAuthority, issueCertificate } from './issue-certificate.js';
import { ADMIN_GROUP, ADMIN_USER, FRONT_PROXY_CLIENT_NAME, PKI_FILES, type CertificateKeyPair, type Pki } from './pki.js';
import { writeFileAtomic } from './write-file-atomic.js';

export interface EnsurePkiOptions {
  /** Extra DNS names and IPs for the serving certificate. */
  hosts: string[];
}

/** Leaf certificates this close to expiry are replaced at start-up. */
const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

/** Names every serving certificate carries: loopback, this host, and the in-cluster service names. */
export function defaultServingHosts(): string[] {
  return [
    'localhost',
    '127.0.0.1',
    '::1',
    hostname(),
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    'kubernetes.default.svc.cluster.local',
  ];
}

/**
 * Creates `<dataDir>/pki` on first start (CA, API server serving certificate,
 * admin client certificate, front-proxy CA and client certificate) and reuses it afterwards. The CA is never
 * replaced while its files exist; a leaf is re-issued when it is missing, not
 * signed by the CA, about to expire, or (serving) lacks a requested host.
 */
export async function ensurePki(dataDir: string, opts: EnsurePkiOptions): Promise<Pki> {
  const x509 = loadX509();
  const dir = join(dataDir, 'pki');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const hosts = [...new Set([...defaultServingHosts(), ...opts.hosts])];

  let ca = await readPair(dir, PKI_FILES.caCert, PKI_FILES.caKey);
  if (!ca) {
    ca = await generateCertificateAuthority('skiff-ca');
    await writePair(dir, PKI_FILES.caCert, PKI_FILES.caKey, ca);
  }
  const caCert = new x509.X509Certificate(ca.certPem);

  let serving = await readPair(dir, PKI_FILES.servingCert, PKI_FILES.servingKey);
  if (!serving || !(await usable(serving, caCert)) || !coversHosts(serving, hosts)) {
    serving = await issueCertificate(ca, { commonName: 'skiff-apiserver', hosts, usages: ['serverAuth'] });
    await writePair(dir, PKI_FILES.servingCert, PKI_FILES.servingKey, serving);
  }

  let admin = await readPair(dir, PKI_FILES.adminCert, PKI_FILES.adminKey);
  if (!admin || !(await usable(admin, caCert))) {
    admin = await issueCertificate(ca, { commonName: ADMIN_USER, organizations: [ADMIN_GROUP], usages: ['clientAuth'] });
    await writePair(dir, PKI_FILES.adminCert, PKI_FILES.adminKey, admin);
  }

  // a separate CA, as kubeadm's: a front-proxy certificate must not pass as a user's, nor the other way round
  let frontProxyCa = await readPair(dir, PKI_FILES.frontProxyCaCert, PKI_FILES.frontProxyCaKey);
  if (!frontProxyCa) {
    frontProxyCa = await generateCertificateAuthority('front-proxy-ca');
    await writePair(dir, PKI_FILES.frontProxyCaCert, PKI_FILES.frontProxyCaKey, frontProxyCa);
  }
  let frontProxyClient = await readPair(dir, PKI_FILES.frontProxyClientCert, PKI_FILES.frontProxyClientKey);
  if (!frontProxyClient || !(await usable(frontProxyClient, new x509.X509Certificate(frontProxyCa.certPem)))) {
    frontProxyClient = await issueCertificate(frontProxyCa, { commonName: FRONT_PROXY_CLIENT_NAME, usages: ['clientAuth'] });
    await writePair(dir, PKI_FILES.frontProxyClientCert, PKI_FILES.frontProxyClientKey, frontProxyClient);
  }
  return { dir, ca, serving, admin, frontProxyCa, frontProxyClient };
}

export interface ClientCertificateRequest {
  /** The user name the API server sees. */
  commonName: string;
  /** The groups the API server sees. */
  organizations?: readonly string[];
}

/** A client certificate for a component (kubelet, controller manager, …), signed by the cluster CA. */
export function issueClientCertificate(pki: Pki, req: ClientCertificateRequest): Promise<CertificateKeyPair> {
  return issueCertificate(pki.ca, { commonName: req.commonName, organizations: req.organizations, usages: ['clientAuth'] });
}

/** A serving certificate for another endpoint (e.g. a kubelet's server), signed by the cluster CA. */
export function issueServingCertificate(pki: Pki, req: { commonName: string; hosts: readonly string[] }): Promise<CertificateKeyPair> {
  return issueCertificate(pki.ca, { commonName: req.commonName, hosts: req.hosts, usages: ['serverAuth'] });
}

async function readPair(dir: string, certFile: string, keyFile: string): Promise<CertificateKeyPair | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([readFile(join(dir, certFile), 'utf8'), readFile(join(dir, keyFile), 'utf8')]);
    return { certPem, keyPem };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function writePair(dir: string, certFile: string, keyFile: string, pair: CertificateKeyPair): Promise<void> {
  await writeFileAtomic(join(dir, keyFile), pair.keyPem, 0o600);
  await writeFileAtomic(join(dir, certFile), pair.certPem, 0o644);
}

/** Signed by this CA and not close to expiry. */
async function usable(pair: CertificateKeyPair, caCert: X509.X509Certificate): Promise<boolean> {
  const x509 = loadX509();
  const cert = new x509.X509Certificate(pair.certPem);
  if (cert.notAfter.getTime() - Date.now() < RENEW_BEFORE_MS) return false;
  return cert.verify({ publicKey: caCert.publicKey, signatureOnly: true });
}

function coversHosts(pair: CertificateKeyPair, hosts: readonly string[]): boolean {
  const x509 = loadX509();
  const san = new x509.X509Certificate(pair.certPem).getExtension(x509.SubjectAlternativeNameExtension);
  const present = new Set((san?.names.items ?? []).map((n) => normalizeHost(n.value)));
  return hosts.every((h) => present.has(normalizeHost(h)));
}

/** Compares IPv6 addresses in one spelling and DNS names case-insensitively. */
function normalizeHost(host: string): string {
  if (isIP(host) === 6) return new URL(`http://[${host}]/`).hostname;
  return host.toLowerCase();
}
