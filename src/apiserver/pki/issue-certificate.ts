import { isIP } from 'node:net';
import { x509 as loadX509 } from './x509.js';
import type * as X509 from './x509.js';
import { exportPrivateKeyPem, generateKeyPair, importPrivateKeyPem, randomSerialNumber, SIGNING_ALGORITHM } from './keys.js';
import type { CertificateKeyPair } from './pki.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
export const CA_VALIDITY_DAYS = 3650;
export const LEAF_VALIDITY_DAYS = 365;

/** Start validity an hour early so small clock differences between hosts do not matter. */
function validity(days: number): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return { notBefore: new Date(now - HOUR_MS), notAfter: new Date(now + days * DAY_MS) };
}

function subjectName(commonName: string, organizations: readonly string[] = []): X509.JsonName {
  const name: X509.JsonName = [];
  for (const o of organizations) name.push({ O: [o] });
  name.push({ CN: [commonName] });
  return name;
}

/** A self-signed CA certificate with a fresh key. */
export async function generateCertificateAuthority(commonName: string): Promise<CertificateKeyPair> {
  const x509 = loadX509();
  const keys = await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerialNumber(),
    name: subjectName(commonName),
    keys,
    signingAlgorithm: SIGNING_ALGORITHM,
    ...validity(CA_VALIDITY_DAYS),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportPrivateKeyPem(keys.privateKey) };
}

export interface CertificateRequest {
  commonName: string;
  organizations?: readonly string[];
  /** DNS names and IP addresses; makes the certificate usable for serving. */
  hosts?: readonly string[];
  usages: ReadonlyArray<'serverAuth' | 'clientAuth'>;
  validityDays?: number;
}

/** A leaf certificate with a fresh key, signed by `ca`. */
export async function issueCertificate(ca: CertificateKeyPair, req: CertificateRequest): Promise<CertificateKeyPair> {
  const x509 = loadX509();
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importPrivateKeyPem(ca.keyPem);
  const keys = await generateKeyPair();
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension(req.usages.map((u) => x509.ExtendedKeyUsage[u])),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
  ];
  if (req.hosts?.length) {
    const names = [...new Set(req.hosts)].map((h) => ({ type: isIP(h) ? ('ip' as const) : ('dns' as const), value: h }));
    extensions.push(new x509.SubjectAlternativeNameExtension(names));
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: subjectName(req.commonName, req.organizations),
    issuer: caCert.subjectName,
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: SIGNING_ALGORITHM,
    ...validity(req.validityDays ?? LEAF_VALIDITY_DAYS),
    extensions,
  });
  return { certPem: cert.toString('pem'), keyPem: await exportPrivateKeyPem(keys.privateKey) };
}
