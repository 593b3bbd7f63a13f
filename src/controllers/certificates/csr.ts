import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { x509, type Pkcs10CertificateRequest } from '../../api/x509.js';

/** Helpers the CSR approver and signer share (upstream's pkg/controller/certificates). */
export const KUBE_APISERVER_CLIENT = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING = 'kubernetes.io/kubelet-serving';

function hasCondition(csr: CertificateSigningRequest, type: string): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}
export const isApproved = (csr: CertificateSigningRequest) => hasCondition(csr, 'Approved');
export const isDenied = (csr: CertificateSigningRequest) => hasCondition(csr, 'Denied');
export const hasFailed = (csr: CertificateSigningRequest) => hasCondition(csr, 'Failed');

/** The PKCS#10 request inside spec.request (base64 of PEM in JSON). */
export function parseRequest(csr: CertificateSigningRequest): Pkcs10CertificateRequest {
  const pem = Buffer.from(csr.spec?.request ?? '', 'base64').toString('latin1');
  const block = /-----BEGIN CERTIFICATE REQUEST-----[\s\S]*?-----END CERTIFICATE REQUEST-----/.exec(pem);
  if (!block) throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const lib = x509();
  return new lib.Pkcs10CertificateRequest(lib.PemConverter.decode(block[0])[0]);
}

export function subjectField(req: Pkcs10CertificateRequest, field: 'CN' | 'O'): string[] {
  return req.subjectName.getField(field);
}

const SAN_OID = '2.5.29.17';

export function subjectAltNames(req: Pkcs10CertificateRequest): { type: string; value: string }[] {
  const raw = req.extensions.find((e) => e.type === SAN_OID);
  if (!raw) return [];
  const { SubjectAlternativeNameExtension } = x509();
  const ext = raw instanceof SubjectAlternativeNameExtension ? raw : new SubjectAlternativeNameExtension(raw.rawData);
  return ext.names.items.map((n) => ({ type: n.type, value: n.value }));
}

const KUBELET_CLIENT_USAGES = new Set(['key encipherment', 'digital signature', 'client auth']);

/**
 * Upstream's ValidateKubeletClientCSR: O is exactly system:nodes, CN is
 * system:node:<name>, no subject alternative names, and only client usages.
 * Returns why not, or undefined when it is one.
 */
export function kubeletClientProblem(req: Pkcs10CertificateRequest, usages: readonly string[]): string | undefined {
  const orgs = subjectField(req, 'O');
  if (orgs.length !== 1 || orgs[0] !== 'system:nodes') return 'subject organization is not system:nodes';
  const cn = subjectField(req, 'CN')[0] ?? '';
  if (!cn.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  const sans = subjectAltNames(req);
  if (sans.some((s) => s.type === 'dns')) return 'DNS subjectAltNames are not allowed';
  if (sans.some((s) => s.type === 'email')) return 'Email subjectAltNames are not allowed';
  if (sans.some((s) => s.type === 'ip')) return 'IP subjectAltNames are not allowed';
  if (sans.some((s) => s.type === 'url')) return 'URI subjectAltNames are not allowed';
  const bad = usages.filter((u) => !KUBELET_CLIENT_USAGES.has(u));
  if (bad.length || !usages.includes('client auth')) return `usages did not match [client auth digital signature key encipherment]`;
  return undefined;
}
