import { randomBytes, webcrypto } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { x509 as loadX509 } from '../../api/x509.js';
import type { Client } from '../../client/rest/client.js';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../api/resource-refs.js';
import type { Clock } from '../../base/clock.js';

/** The signer of kubelet client certificates. */
export const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';

/** A node client certificate could not be obtained (denied or failed CSR, timeout). */
export class NodeCertificateError extends Error {
  override readonly name = 'NodeCertificateError';
}

/** A new P-256 key and a CSR for `system:node:<name>` in `system:nodes`, as upstream's kubelet asks. */
export async function newNodeCertificateRequest(nodeName: string): Promise<{ csrPem: string; keyPem: string }> {
  const x509 = loadX509();
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: [{ O: ['system:nodes'] }, { CN: [`system:node:${nodeName}`] }], keys, signingAlgorithm: alg });
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { csrPem: csr.toString('pem'), keyPem: x509.PemConverter.encode(der, 'PRIVATE KEY') };
}

export interface RequestCertificateOptions {
  /** `node-csr-…` for a bootstrap, `csr-…` for a renewal, as upstream names them. */
  namePrefix: string;
  signal: AbortSignal;
  clock: Clock;
  /** How long to wait for approval and signing. */
  timeoutMs: number;
  /** Called once the CSR exists. */
  onCreated?: (name: string) => void;
}

/**
 * Sends a kubelet client CSR (signer `kube-apiserver-client-kubelet`, usages
 * digital signature and client auth, as upstream's kubelet does for an ECDSA
 * key) and waits until it is signed; returns its name and the PEM
 * certificate. A Denied or Failed condition is a NodeCertificateError.
 */
export async function requestNodeCertificate(client: Client, csrPem: string, o: RequestCertificateOptions): Promise<{ name: string; certPem: string }> {
  const name = `${o.namePrefix}${randomBytes(8).toString('hex')}`;
  const csrs = client.resource<CertificateSigningRequest>(CERTIFICATE_SIGNING_REQUESTS);
  await csrs.create(
    {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: { request: Buffer.from(csrPem).toString('base64'), signerName: KUBELET_CLIENT_SIGNER, usages: ['digital signature', 'client auth'] },
    },
    { signal: o.signal },
  );
  o.onCreated?.(name);
  const deadline = o.clock.now() + o.timeoutMs;
  while (o.clock.now() < deadline) {
    o.signal.throwIfAborted();
    const csr = await csrs.get(name, { signal: o.signal });
    const conditions = csr.status?.conditions ?? [];
    const refused = conditions.find((c) => c.type === 'Denied' || c.type === 'Failed');
    if (refused) throw new NodeCertificateError(`certificate signing request ${name} is ${refused.type.toLowerCase()}: ${refused.reason ?? ''} ${refused.message ?? ''}`.trim());
    if (csr.status?.certificate) return { name, certPem: Buffer.from(csr.status.certificate, 'base64').toString() };
    await o.clock.sleep(1000, o.signal);
  }
  throw new NodeCertificateError(`timed out waiting for certificate signing request ${name} to be approved and signed`);
}

/** Writes through a temporary file and a rename, so a reader sees the old content or the new, never half. */
export async function writeAtomic(path: string, content: string): Promise<void> {
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, content, { mode: 0o600 });
  await rename(tmp, path);
}
