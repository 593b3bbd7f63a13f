import { createPrivateKey, webcrypto } from 'node:crypto';
import { x509 as loadX509 } from '../../api/x509.js';
import type * as X509 from '../../api/x509.js';

const x509 = loadX509();

export interface SigningCa {
  cert: X509.X509Certificate;
  key: webcrypto.CryptoKey;
  algorithm: { name: string; hash: string };
}

/** Loads the cluster CA (PEM certificate and PKCS#8/SEC1/PKCS#1 key, EC P-256 or RSA) for signing. */
export async function loadSigningCa(certPem: string, keyPem: string): Promise<SigningCa> {
  const cert = new x509.X509Certificate(certPem);
  const key = createPrivateKey(keyPem);
  const der = key.export({ format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve === 'secp384r1' ? 'P-384' : 'P-256';
    const algorithm = { name: 'ECDSA', hash: curve === 'P-384' ? 'SHA-384' : 'SHA-256' };
    return { cert, key: await webcrypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: curve }, false, ['sign']), algorithm };
  }
  if (key.asymmetricKeyType === 'rsa') {
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    return { cert, key: await webcrypto.subtle.importKey('pkcs8', der, algorithm, false, ['sign']), algorithm };
  }
  throw new Error(`unsupported CA key type ${key.asymmetricKeyType ?? 'unknown'}`);
}

const KEY_USAGE_FLAGS: Readonly<Record<string, number>> = {
  signing: x509.KeyUsageFlags.digitalSignature,
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign,
  'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly,
};

const EXTENDED_KEY_USAGES: Readonly<Record<string, string>> = {
  'server auth': x509.ExtendedKeyUsage.serverAuth,
  'client auth': x509.ExtendedKeyUsage.clientAuth,
  'code signing': x509.ExtendedKeyUsage.codeSigning,
  'email protection': x509.ExtendedKeyUsage.emailProtection,
  timestamping: x509.ExtendedKeyUsage.timeStamping,
  'ocsp signing': x509.ExtendedKeyUsage.ocspSigning,
};

/** Upstream's signer backdates certificates so clocks a little behind still accept them. */
const BACKDATE_MS = 5 * 60 * 1000;
/** Certificates shorter than this keep their whole duration after now (upstream's Short: 5 minutes is ~1% of 8 hours). */
const SHORT_MS = 8 * 60 * 60 * 1000;

/** NotBefore and NotAfter as upstream's signer sets them: backdated start; a long certificate's end backdated too, a short one's not; never past the CA. */
export function certificateBoundaries(now: number, durationMs: number, caNotAfter: number): { notBefore: number; notAfter: number } {
  const end = durationMs < SHORT_MS ? now + durationMs : now + durationMs - BACKDATE_MS;
  return { notBefore: now - BACKDATE_MS, notAfter: Math.min(end, caNotAfter) };
}

/**
 * Issues the certificate a CSR asks for: its subject, key and subject
 * alternative names, the requested usages, for `durationMs` as
 * certificateBoundaries has it.
 */
export async function signCertificate(
  ca: SigningCa,
  request: X509.Pkcs10CertificateRequest,
  usages: readonly string[],
  durationMs: number,
  now: Date,
): Promise<string> {
  const flags = usages.reduce((acc, u) => acc | (KEY_USAGE_FLAGS[u] ?? 0), 0);
  const ekus = usages.map((u) => EXTENDED_KEY_USAGES[u]).filter((e): e is string => Boolean(e));
  const extensions: X509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  if (flags) extensions.push(new x509.KeyUsagesExtension(flags, true));
  if (ekus.length) extensions.push(new x509.ExtendedKeyUsageExtension(ekus));
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey));
  const san = request.extensions.find((e) => e.type === '2.5.29.17');
  if (san) extensions.push(san);
  const { notBefore, notAfter } = certificateBoundaries(now.getTime(), durationMs, ca.cert.notAfter.getTime());
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: Buffer.from(bytes).toString('hex'),
    subject: request.subjectName,
    issuer: ca.cert.subjectName,
    notBefore: new Date(notBefore),
    notAfter: new Date(notAfter),
    publicKey: request.publicKey,
    signingKey: ca.key,
    signingAlgorithm: ca.algorithm,
    extensions,
  });
  return cert.toString('pem');
}
