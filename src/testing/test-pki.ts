import { issueCertificate, generateCertificateAuthority } from '../apiserver/pki/issue-certificate.js';
import { ADMIN_GROUP, ADMIN_USER, type CertificateKeyPair } from '../apiserver/pki/pki.js';

/** Certificates for loopback test servers: a CA, a serving certificate and the admin client certificate. */
export interface TestPki {
  ca: CertificateKeyPair;
  serving: CertificateKeyPair;
  admin: CertificateKeyPair;
}

let shared: Promise<TestPki> | undefined;

/**
 * One set of certificates per process: generating keys is the slowest part
 * of a start, and test servers only ever serve loopback to their own tests.
 */
export function testPki(): Promise<TestPki> {
  shared ??= generate().catch((err: unknown) => {
    shared = undefined;
    throw err;
  });
  return shared;
}

async function generate(): Promise<TestPki> {
  const ca = await generateCertificateAuthority('skiff-testing-ca');
  const [serving, admin] = await Promise.all([
    issueCertificate(ca, { commonName: 'skiff-apiserver', hosts: ['localhost', '127.0.0.1', '::1'], usages: ['serverAuth'] }),
    issueCertificate(ca, { commonName: ADMIN_USER, organizations: [ADMIN_GROUP], usages: ['clientAuth'] }),
  ]);
  return { ca, serving, admin };
}
