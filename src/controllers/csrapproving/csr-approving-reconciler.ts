import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { SubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isConflict, isNotFound } from '../../client/rest/error-predicates.js';
import { isApproved, isDenied, KUBE_APISERVER_CLIENT_KUBELET, kubeletClientProblem, parseRequest, subjectField } from '../certificates/csr.js';
import { CERTIFICATE_SIGNING_REQUESTS, SUBJECT_ACCESS_REVIEWS } from '../../api/resource-refs.js';


interface Recognizer {
  /** The CSR subresource the requester must be allowed to `create`. */
  permission: string;
  message: string;
  matches(csr: CertificateSigningRequest): boolean;
}

function kubeletClient(csr: CertificateSigningRequest): boolean {
  if (csr.spec?.signerName !== KUBE_APISERVER_CLIENT_KUBELET) return false;
  try {
    return kubeletClientProblem(parseRequest(csr), csr.spec.usages ?? []) === undefined;
  } catch {
    return false;
  }
}

/** Upstream's sarapprover recognizers, most specific first. */
const RECOGNIZERS: readonly Recognizer[] = [
  {
    permission: 'selfnodeclient',
    message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
    matches: (csr) => kubeletClient(csr) && subjectField(parseRequest(csr), 'CN')[0] === csr.spec?.username,
  },
  { permission: 'nodeclient', message: 'Auto approving kubelet client certificate after SubjectAccessReview.', matches: kubeletClient },
];

/**
 * The csrapproving controller: a kubelet client CSR is approved when its
 * requester may `create` `certificatesigningrequests/nodeclient` (a new
 * node's bootstrap token) or `/selfnodeclient` (a node renewing its own
 * certificate), asked through a SubjectAccessReview. Anything else is left
 * for a person (`kubectl certificate approve`).
 */
export class CsrApprovingReconciler implements Reconciler {
  constructor(private readonly o: { client: Client; csrs: Lister<CertificateSigningRequest> }) {}

  async reconcile(key: string, signal: AbortSignal): Promise<void> {
    const csr = this.o.csrs.get(key);
    if (!csr || isApproved(csr) || isDenied(csr) || csr.status?.certificate) return;
    for (const r of RECOGNIZERS) {
      if (!r.matches(csr)) continue;
      if (!(await this.authorized(csr, r.permission, signal))) continue;
      const approved = structuredClone(csr);
      approved.status = { ...(approved.status ?? {}), conditions: [...(approved.status?.conditions ?? []), { type: 'Approved', status: 'True', reason: 'AutoApproved', message: r.message }] };
      try {
        await this.o.client.resource<CertificateSigningRequest>(CERTIFICATE_SIGNING_REQUESTS).updateSubresource(csr.metadata!.name!, 'approval', approved, { signal });
      } catch (err) {
        if (isNotFound(err)) return;
        if (isConflict(err)) throw err; // the watch brings the newer object; retry
        throw err;
      }
      return;
    }
  }

  private async authorized(csr: CertificateSigningRequest, subresource: string, signal: AbortSignal): Promise<boolean> {
    const review: SubjectAccessReview = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: csr.spec?.username,
        uid: csr.spec?.uid,
        groups: csr.spec?.groups,
        extra: csr.spec?.extra,
        resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource },
      },
    };
    const answer = await this.o.client.resource<SubjectAccessReview>(SUBJECT_ACCESS_REVIEWS).create(review, { signal });
    return answer.status?.allowed === true;
  }
}
