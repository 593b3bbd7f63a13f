import { randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { parse, stringify } from 'yaml';
import { x509 as loadX509 } from '../../api/x509.js';
import { Client } from '../../client/rest/client.js';
import { caCertHash } from '../../machinery/ca-cert-hash.js';
import type { Logger } from '../../machinery/logger.js';
import { CERTIFICATE_SIGNING_REQUESTS, CONFIG_MAPS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

const x509 = loadX509();


/** The joining node's credentials could not be obtained (bad CA hash, denied CSR, …). */
export class BootstrapError extends Error {
  override readonly name = 'BootstrapError';
}

export interface BootstrapOptions {
  /** The API server, e.g. https://10.0.0.1:6443. */
  server: string;
  /** A bootstrap token `<id>.<secret>`. */
  token: string;
  /** kubeadm's `sha256:<hex>` of the CA's public key, checked against kube-public/cluster-info. */
  caCertHash?: string;
  /** Or the CA itself (PEM). */
  caPem?: string;
  nodeName: string;
  /** Where the client certificate and kubeconfig live (upstream: --cert-dir). */
  certDir: string;
  logger: Logger;
  signal: AbortSignal;
  /** How long to wait for the CSR to be approved and signed (default 1 h, as upstream). */
  timeoutMs?: number;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

const CERT_FILE = 'kubelet-client-current.pem';
const KUBECONFIG_FILE = 'kubelet.kubeconfig';

/** The certificate still names this node and has over a fifth of its life left. */
function usable(pem: string, nodeName: string, now: number): boolean {
  try {
    const cert = new X509Certificate(pem);
    const from = Date.parse(cert.validFrom);
    const to = Date.parse(cert.validTo);
    return cert.subject.split('\n').includes(`CN=system:node:${nodeName}`) && to - now > (to - from) / 5;
  } catch {
    return false;
  }
}

/** The CA from kube-public/cluster-info, trusted only if its public key has the hash we were given (kubeadm's token discovery). */
async function discoverCa(server: string, hash: string): Promise<string> {
  const anonymous = new Client({ server, insecureSkipTLSVerify: true }, { component: 'kubelet-bootstrap' });
  try {
    const cm = await anonymous.resource<ConfigMap>(CONFIG_MAPS).namespace('kube-public').get('cluster-info');
    const doc = parse(cm.data?.kubeconfig ?? '') as { clusters?: { cluster?: { 'certificate-authority-data'?: string } }[] } | null;
    const data = doc?.clusters?.[0]?.cluster?.['certificate-authority-data'];
    if (!data) throw new BootstrapError('kube-public/cluster-info has no certificate-authority-data');
    const ca = Buffer.from(data, 'base64').toString();
    if (caCertHash(ca) !== hash.toLowerCase()) throw new BootstrapError(`cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${caCertHash(ca)}" are pinned`);
    return ca;
  } finally {
    anonymous.close();
  }
}

async function newCertificateRequest(nodeName: string): Promise<{ csrPem: string; keyPem: string }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: [{ O: ['system:nodes'] }, { CN: [`system:node:${nodeName}`] }], keys, signingAlgorithm: alg });
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { csrPem: csr.toString('pem'), keyPem: x509.PemConverter.encode(der, 'PRIVATE KEY') };
}

async function waitForCertificate(client: Client, name: string, o: BootstrapOptions): Promise<string> {
  const clock = o.clock ?? realClock;
  const deadline = clock.now() + (o.timeoutMs ?? 3_600_000);
  while (clock.now() < deadline) {
    o.signal.throwIfAborted();
    const csr = await client.resource<CertificateSigningRequest>(CERTIFICATE_SIGNING_REQUESTS).get(name, { signal: o.signal });
    const conditions = csr.status?.conditions ?? [];
    const refused = conditions.find((c) => c.type === 'Denied' || c.type === 'Failed');
    if (refused) throw new BootstrapError(`certificate signing request ${name} is ${refused.type.toLowerCase()}: ${refused.reason ?? ''} ${refused.message ?? ''}`.trim());
    if (csr.status?.certificate) return Buffer.from(csr.status.certificate, 'base64').toString();
    await clock.sleep(1000, o.signal);
  }
  throw new BootstrapError(`timed out waiting for certificate signing request ${name} to be approved and signed`);
}

async function writeAtomic(path: string, content: string): Promise<void> {
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, content, { mode: 0o600 });
  await rename(tmp, path);
}

/**
 * A kubelet joining with a bootstrap token (upstream's kubelet TLS
 * bootstrap): find and check the CA, send a CSR for `system:node:<name>` in
 * `system:nodes` as the token's user, wait for the csrapproving and
 * csrsigning controllers, then write the certificate and a kubeconfig using
 * it. A usable certificate from an earlier start is kept. Returns the
 * kubeconfig path.
 */
export async function bootstrapClientCertificate(o: BootstrapOptions): Promise<string> {
  await mkdir(o.certDir, { recursive: true, mode: 0o700 });
  const certPath = join(o.certDir, CERT_FILE);
  const kubeconfigPath = join(o.certDir, KUBECONFIG_FILE);
  const existing = await readFile(certPath, 'utf8').catch(() => '');
  const haveKubeconfig = await readFile(kubeconfigPath, 'utf8').then(() => true, () => false);
  if (existing && haveKubeconfig && usable(existing, o.nodeName, (o.clock ?? realClock).now())) return kubeconfigPath;

  if (!o.caPem && !o.caCertHash) throw new BootstrapError('joining with --token needs --ca-cert-hash sha256:<hex> (printed by `skiff token create --print-join-command`) or --certificate-authority');
  const ca = o.caPem ?? (await discoverCa(o.server, o.caCertHash!));
  const client = new Client({ server: o.server, ca, token: o.token }, { component: 'kubelet-bootstrap' });
  try {
    const { csrPem, keyPem } = await newCertificateRequest(o.nodeName);
    const name = `node-csr-${randomBytes(8).toString('hex')}`;
    await client.resource<CertificateSigningRequest>(CERTIFICATE_SIGNING_REQUESTS).create(
      {
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { name },
        spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
      },
      { signal: o.signal },
    );
    o.logger.info('waiting for the client certificate', { csr: name });
    const certPem = await waitForCertificate(client, name, o);
    await writeAtomic(certPath, `${certPem.trim()}\n${keyPem.trim()}\n`);
    await writeAtomic(join(o.certDir, 'ca.crt'), ca);
    await writeAtomic(
      kubeconfigPath,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'default-cluster', cluster: { server: o.server, 'certificate-authority': join(o.certDir, 'ca.crt') } }],
        users: [{ name: 'default-auth', user: { 'client-certificate': certPath, 'client-key': certPath } }],
        contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', user: 'default-auth', namespace: 'default' } }],
        'current-context': 'default-context',
      }),
    );
    o.logger.info('client certificate issued', { node: o.nodeName, csr: name });
    return kubeconfigPath;
  } finally {
    client.close();
  }
}
