import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { parseCertificateRequest } from '../../api/validation/certificates.js';
import type { Authorizer } from '../authorization/authorizer.js';
import type { UserInfo } from '../authentication/user-info.js';
import type { AdmissionAttributes, MutatingAdmission, Operation, ValidatingAdmission } from './admission.js';
import { admissionForbidden } from './forbidden.js';

const GROUP = 'certificates.k8s.io';

function isCsr(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === GROUP && attrs.resource.resource === 'certificatesigningrequests';
}

function csrOf(attrs: AdmissionAttributes): CertificateSigningRequest | undefined {
  return attrs.object as unknown as CertificateSigningRequest | undefined;
}

/** Whether the user may `verb` the signer: its exact name, or the `<domain>/*` wildcard (upstream's IsAuthorizedForSignerName). */
async function authorizedForSigner(authorizer: Authorizer, user: UserInfo, verb: string, signerName: string): Promise<boolean> {
  const names = [signerName];
  const slash = signerName.indexOf('/');
  if (slash > 0) names.push(`${signerName.slice(0, slash)}/*`);
  for (const name of names) {
    const { decision } = await authorizer.authorize({
      user, verb, resourceRequest: true, apiGroup: GROUP, apiVersion: '*', resource: 'signers', subresource: '', namespace: '', name, path: '',
    });
    if (decision === 'Allow') return true;
  }
  return false;
}

/**
 * The requester of a CSR is the user who created it: spec.username, uid,
 * groups and extra are set by the server, whatever the request says (upstream
 * sets them in the CSR strategy's PrepareForCreate).
 */
export class CertificateRequester implements MutatingAdmission {
  readonly name = 'CertificateRequester';
  handles(operation: Operation): boolean {
    return operation === 'CREATE';
  }
  async admit(attrs: AdmissionAttributes): Promise<void> {
    const csr = csrOf(attrs);
    if (!isCsr(attrs) || attrs.subresource || !csr) return;
    const spec = (csr.spec ??= {} as CertificateSigningRequest['spec']);
    spec.username = attrs.user.name;
    if (attrs.user.uid) spec.uid = attrs.user.uid;
    else delete spec.uid;
    spec.groups = [...attrs.user.groups];
    if (attrs.user.extra && Object.keys(attrs.user.extra).length) spec.extra = structuredClone(attrs.user.extra);
    else delete spec.extra;
  }
}

/** Upstream's CertificateApproval: approving or denying needs `approve` on the signer. */
export class CertificateApproval implements ValidatingAdmission {
  readonly name = 'CertificateApproval';
  constructor(private readonly authorizer: () => Authorizer) {}
  handles(operation: Operation): boolean {
    return operation === 'UPDATE';
  }
  async validate(attrs: AdmissionAttributes): Promise<void> {
    const csr = csrOf(attrs);
    if (!isCsr(attrs) || attrs.subresource !== 'approval' || !csr) return;
    const signer = csr.spec?.signerName ?? '';
    if (!(await authorizedForSigner(this.authorizer(), attrs.user, 'approve', signer))) {
      throw admissionForbidden(attrs, `user not permitted to approve requests with signerName "${signer}"`);
    }
  }
}

/** Upstream's CertificateSigning: setting or changing status.certificate needs `sign` on the signer. */
export class CertificateSigning implements ValidatingAdmission {
  readonly name = 'CertificateSigning';
  constructor(private readonly authorizer: () => Authorizer) {}
  handles(operation: Operation): boolean {
    return operation === 'UPDATE';
  }
  async validate(attrs: AdmissionAttributes): Promise<void> {
    const csr = csrOf(attrs);
    const old = attrs.oldObject as unknown as CertificateSigningRequest | undefined;
    if (!isCsr(attrs) || attrs.subresource !== 'status' || !csr) return;
    if ((csr.status?.certificate ?? '') === (old?.status?.certificate ?? '')) return;
    const signer = csr.spec?.signerName ?? '';
    if (!(await authorizedForSigner(this.authorizer(), attrs.user, 'sign', signer))) {
      throw admissionForbidden(attrs, `user not permitted to sign requests with signerName "${signer}"`);
    }
  }
}

/** Upstream's CertificateSubjectRestriction: nobody gets a system:masters client certificate through the API. */
export class CertificateSubjectRestriction implements ValidatingAdmission {
  readonly name = 'CertificateSubjectRestriction';
  handles(operation: Operation): boolean {
    return operation === 'CREATE';
  }
  async validate(attrs: AdmissionAttributes): Promise<void> {
    const csr = csrOf(attrs);
    if (!isCsr(attrs) || attrs.subresource || !csr || csr.spec?.signerName !== 'kubernetes.io/kube-apiserver-client') return;
    let organizations: string[];
    try {
      organizations = parseCertificateRequest(csr.spec.request).subjectName.getField('O');
    } catch {
      return; // validation reports the unparseable request
    }
    if (organizations.includes('system:masters')) {
      throw admissionForbidden(attrs, 'use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
    }
  }
}
