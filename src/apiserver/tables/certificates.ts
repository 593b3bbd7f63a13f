import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { humanDuration, translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './columns.js';
import { column, convertor, type TableConvertor } from './table-convertor.js';

/** Upstream's extractCSRStatus: the decision, then Failed and Issued. */
export function csrCondition(csr: CertificateSigningRequest): string {
  const types = new Set((csr.status?.conditions ?? []).map((c) => c.type));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (csr.status?.certificate) status += ',Issued';
  return status;
}

export const certificateSigningRequestTable: TableConvertor = convertor<CertificateSigningRequest>(
  [
    NAME_COLUMN,
    AGE_COLUMN,
    column('SignerName', 'string', 'signerName indicates the requested signer, and is a qualified name.'),
    column('Requestor', 'string', 'Name of the user that created the CertificateSigningRequest.'),
    column('RequestedDuration', 'string', 'The requested duration of validity of the issued certificate.'),
    column('Condition', 'string', 'The current status of the request.'),
  ],
  (csr, now) => [
    csr.metadata?.name ?? '',
    translateTimestampSince(csr.metadata?.creationTimestamp, now),
    csr.spec?.signerName ?? '',
    csr.spec?.username ?? '',
    csr.spec?.expirationSeconds === undefined ? '<none>' : humanDuration(csr.spec.expirationSeconds * 1000),
    csrCondition(csr),
  ],
);
