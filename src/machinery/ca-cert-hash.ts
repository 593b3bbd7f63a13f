import { createHash, X509Certificate } from 'node:crypto';

/** kubeadm's `--discovery-token-ca-cert-hash`: `sha256:` + hex SHA-256 of the CA's SubjectPublicKeyInfo. */
export function caCertHash(caPem: string): string {
  const spki = new X509Certificate(caPem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}
