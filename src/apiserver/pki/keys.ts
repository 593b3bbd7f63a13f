import { webcrypto } from 'node:crypto';
import { x509 as loadX509 } from './x509.js';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

/** ECDSA P-256 with SHA-256: small, fast, and accepted by Go's crypto/tls. */
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
export const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;

export function subtle(): webcrypto.SubtleCrypto {
  return webcrypto.subtle;
}

export async function generateKeyPair(): Promise<CryptoKeyPair> {
  return subtle().generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

/** PKCS#8 "PRIVATE KEY" PEM, which both Node and Go's tls.X509KeyPair read. */
export async function exportPrivateKeyPem(key: CryptoKey): Promise<string> {
  const x509 = loadX509();
  const der = await subtle().exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

export async function importPrivateKeyPem(pem: string): Promise<CryptoKey> {
  const x509 = loadX509();
  const [der] = x509.PemConverter.decode(pem);
  return subtle().importKey('pkcs8', der, KEY_ALGORITHM, true, ['sign']);
}

/**
 * A random positive serial number. The first byte stays in 0x01..0x7f so the
 * DER integer is positive and minimally encoded; Go rejects anything else.
 */
export function randomSerialNumber(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  return Buffer.from(bytes).toString('hex');
}
