import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../pki/write-file-atomic.js';

/** The key service-account tokens are signed with (upstream's --service-account-key-file / -signing-key-file). */
export interface ServiceAccountKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Upstream's key id: the unpadded base64url SHA-256 of the public key's DER (PKIX). */
  keyId: string;
}

export const SA_KEY_FILE = 'sa.key';
export const SA_PUB_FILE = 'sa.pub';

/** Reads `<pkiDir>/sa.key`, creating an RSA 2048 key (and `sa.pub`) on first start. */
export async function ensureServiceAccountKey(pkiDir: string): Promise<ServiceAccountKey> {
  const keyPath = join(pkiDir, SA_KEY_FILE);
  let pem: string;
  try {
    pem = await readFile(keyPath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    pem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    await writeFileAtomic(join(pkiDir, SA_PUB_FILE), pair.publicKey.export({ type: 'spki', format: 'pem' }) as string, 0o644);
    await writeFileAtomic(keyPath, pem, 0o600);
  }
  const privateKey = createPrivateKey(pem);
  const publicKey = createPublicKey(privateKey);
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return { privateKey, publicKey, keyId: createHash('sha256').update(der).digest('base64url') };
}
