import { X509Certificate } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { parse, stringify } from 'yaml';
import { Client } from '../../client/rest/client.js';
import { caCertHash } from '../../machinery/ca-cert-hash.js';
import type { Logger } from '../../machinery/logger.js';
import { CONFIG_MAPS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';
import { newNodeCertificateRequest, NodeCertificateError, requestNodeCertificate, writeAtomic } from './node-csr.js';

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

/** Where a kubelet keeps its current client certificate and key (upstream's name), in its cert dir. */
export const CLIENT_CERT_FILE = 'kubelet-client-current.pem';
const KUBECONFIG_FILE = 'kubelet.kubeconfig';

/** The certificate names this node and has not expired (the certificate manager renews it from there). */
function usable(pem: string, nodeName: string, now: number): boolean {
  try {
    const cert = new X509Certificate(pem);
    return cert.subject.split('\n').includes(`CN=system:node:${nodeName}`) && Date.parse(cert.validTo) > now;
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

/**
 * A kubelet joining with a bootstrap token (upstream's kubelet TLS
 * bootstrap): find and check the CA, send a CSR for `system:node:<name>` in
 * `system:nodes` as the token's user, wait for the csrapproving and
 * csrsigning controllers, then write the certificate and a kubeconfig using
 * it. A certificate from an earlier start is kept until it expires. Returns the
 * kubeconfig path.
 */
export async function bootstrapClientCertificate(o: BootstrapOptions): Promise<string> {
  await mkdir(o.certDir, { recursive: true, mode: 0o700 });
  const certPath = join(o.certDir, CLIENT_CERT_FILE);
  const kubeconfigPath = join(o.certDir, KUBECONFIG_FILE);
  const existing = await readFile(certPath, 'utf8').catch(() => '');
  const haveKubeconfig = await readFile(kubeconfigPath, 'utf8').then(() => true, () => false);
  if (existing && haveKubeconfig && usable(existing, o.nodeName, (o.clock ?? realClock).now())) return kubeconfigPath;

  if (!o.caPem && !o.caCertHash) throw new BootstrapError('joining with --token needs --ca-cert-hash sha256:<hex> (printed by `skiff token create --print-join-command`) or --certificate-authority');
  const ca = o.caPem ?? (await discoverCa(o.server, o.caCertHash!));
  const client = new Client({ server: o.server, ca, token: o.token }, { component: 'kubelet-bootstrap' });
  try {
    const { csrPem, keyPem } = await newNodeCertificateRequest(o.nodeName);
    let certPem: string;
    let name: string;
    try {
      ({ name, certPem } = await requestNodeCertificate(client, csrPem, {
        namePrefix: 'node-csr-',
        signal: o.signal,
        clock: o.clock ?? realClock,
        timeoutMs: o.timeoutMs ?? 3_600_000,
        onCreated: (csr) => o.logger.info('waiting for the client certificate', { csr }),
      }));
    } catch (err) {
      if (err instanceof NodeCertificateError) throw new BootstrapError(err.message);
      throw err;
    }
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
