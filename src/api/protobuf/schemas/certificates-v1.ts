import { messages } from '../message-schema.js';

/**
 * certificates.k8s.io/v1. The `extra` map of the spec is skipped, as in the
 * access reviews: its ExtraValue has no JSON object form in our table.
 */
export const CERTIFICATES_V1 = messages({
  CertificateSigningRequest: { 1: 'metadata:ObjectMeta', 2: 'spec:CertificateSigningRequestSpec!', 3: 'status:CertificateSigningRequestStatus' },
  CertificateSigningRequestSpec: {
    1: 'request:y!',
    7: 'signerName!',
    8: 'expirationSeconds:i32*',
    5: 'usages:s[]',
    2: 'username',
    3: 'uid',
    4: 'groups:s[]',
    6: 'extra:ExtraValue{}',
  },
  CertificateSigningRequestStatus: { 1: 'conditions:CertificateSigningRequestCondition[]', 2: 'certificate:y' },
  CertificateSigningRequestCondition: { 1: 'type!', 6: 'status!', 2: 'reason', 3: 'message', 4: 'lastUpdateTime:Time', 5: 'lastTransitionTime:Time' },
});
