import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import { x509 as loadX509 } from '../../api/x509.js';

/**
 * A self-signed serving certificate for the kubelet's HTTPS port, as the
 * kubelet makes for itself when no --tls-cert-file is given.
 */
export async function selfSignedServingCert(hostname: string, hosts: readonly string[]): Promise<{ cert: string; key: string }> {
  const x509 = loadX509();
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Date.now().toString(16),
    name: `CN=${hostname}@${Math.floor(now / 1000)}`,
    keys,
    signingAlgorithm: alg,
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 365 * 86400_000),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([...new Set([hostname, ...hosts])].map((h) => ({ type: isIP(h) ? ('ip' as const) : ('dns' as const), value: h }))),
    ],
  });
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const key = `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString('pem'), key };
}
