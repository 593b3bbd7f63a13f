import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import type { Pkcs10CertificateRequest } from '../../api/x509.js';
import {
  hasFailed,
  isApproved,
  isDenied,
  KUBE_APISERVER_CLIENT,
  KUBE_APISERVER_CLIENT_KUBELET,
  KUBELET_SERVING,
  kubeletClientProblem,
  parseRequest,
  subjectAltNames,
  subjectField,
} from '../certificates/csr.js';
import { signCertificate, type SigningCa } from './sign-certificate.js';
import { realClock, type Clock } from '../../base/clock.js';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../api/resource-refs.js';

const CLIENT_USAGES = new Set(['digital signature', 'key encipherment', 'client auth']);
const SERVING_USAGES = new Set(['digital signature', 'key encipherment', 'server auth']);

/** Why a signer refuses the request (upstream's per-signer validation), or undefined. */
function signerProblem(signer: string, req: Pkcs10CertificateRequest, usages: readonly string[]): string | undefined {
  switch (signer) {
    case KUBE_APISERVER_CLIENT: {
      const bad = usages.filter((u) => !CLIENT_USAGES.has(u));
      if (bad.length) return `invalid usage for client certificate: ${bad.join(',')}`;
      if (!usages.includes('client auth')) return 'missing required usage for client certificate: client auth';
      return undefined;
    }
    case KUBE_APISERVER_CLIENT_KUBELET:
      return kubeletClientProblem(req, usages);
    case KUBELET_SERVING: {
      const orgs = subjectField(req, 'O');
      if (orgs.length !== 1 || orgs[0] !== 'system:nodes') return 'subject organization is not system:nodes';
      if (!(subjectField(req, 'CN')[0] ?? '').startsWith('system:node:')) return 'subject common name does not begin with system:node:';
      const sans = subjectAltNames(req);
      if (!sans.some((s) => s.type === 'dns' || s.type === 'ip')) return 'DNS or IP subjectAltName is required';
      if (sans.some((s) => s.type === 'email' || s.type === 'url')) return 'Email and URI subjectAltNames are not allowed';
      const bad = usages.filter((u) => !SERVING_USAGES.has(u));
      if (bad.length || !usages.includes('server auth')) return 'usages did not match [digital signature key encipherment server auth]';
      return undefined;
    }
  }
  return undefined;
}

export const SIGNERS = [KUBE_APISERVER_CLIENT, KUBE_APISERVER_CLIENT_KUBELET, KUBELET_SERVING];

/**
 * The csrsigning controller: approved CSRs for the kubernetes.io client,
 * kubelet-client and kubelet-serving signers get a certificate from the
 * cluster CA in status.certificate, or a Failed condition
 * (SignerValidationFailure) when the request breaks the signer's rules.
 */
export class CsrSigningReconciler implements Reconciler {
  constructor(
    private readonly o: { client: Client; csrs: Lister<CertificateSigningRequest>; ca: () => Promise<SigningCa>; maxDurationMs: number; clock?: Clock },
  ) {}

  async reconcile(key: string, signal: AbortSignal): Promise<void> {
    const csr = this.o.csrs.get(key);
    if (!csr || !isApproved(csr) || isDenied(csr) || hasFailed(csr) || csr.status?.certificate) return;
    const signer = csr.spec?.signerName ?? '';
    if (!SIGNERS.includes(signer)) return;
    const now = new Date((this.o.clock ?? realClock).now());
    const next = structuredClone(csr);
    let problem: string | undefined;
    let request: Pkcs10CertificateRequest | undefined;
    try {
      request = parseRequest(csr);
      problem = signerProblem(signer, request, csr.spec?.usages ?? []);
    } catch (err) {
      problem = (err as Error).message;
    }
    if (problem || !request) {
      const at = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
      next.status = {
        ...(next.status ?? {}),
        conditions: [...(next.status?.conditions ?? []), { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: problem, lastUpdateTime: at, lastTransitionTime: at }],
      };
    } else {
      const requested = csr.spec?.expirationSeconds ? Math.max(600, csr.spec.expirationSeconds) * 1000 : this.o.maxDurationMs;
      const pem = await signCertificate(await this.o.ca(), request, csr.spec?.usages ?? [], Math.min(requested, this.o.maxDurationMs), now);
      next.status = { ...(next.status ?? {}), certificate: Buffer.from(pem).toString('base64') };
    }
    try {
      await this.o.client.resource<CertificateSigningRequest>(CERTIFICATE_SIGNING_REQUESTS).updateStatus(next, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
