import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';

/** Legacy (secret-based) service-account tokens carry this issuer, no audience and no expiry. */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';

/** The Secret type the legacy token controller fills, and its keys and annotations (upstream's core/v1 constants). */
export const SERVICE_ACCOUNT_TOKEN_SECRET_TYPE = 'kubernetes.io/service-account-token';
export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
export const SERVICE_ACCOUNT_UID_ANNOTATION = 'kubernetes.io/service-account.uid';
export const SERVICE_ACCOUNT_TOKEN_KEY = 'token';
export const SERVICE_ACCOUNT_ROOT_CA_KEY = 'ca.crt';
export const SERVICE_ACCOUNT_NAMESPACE_KEY = 'namespace';

/** Upstream's key id: the unpadded base64url SHA-256 of the public key's DER (PKIX). */
export function serviceAccountKeyId(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('base64url');
}

export interface LegacyTokenSubject {
  namespace: string;
  serviceAccountName: string;
  serviceAccountUid: string;
  secretName: string;
}

/**
 * A legacy token as upstream's token controller signs it (RS256): issuer
 * `kubernetes/serviceaccount`, subject `system:serviceaccount:<ns>:<name>`
 * and the `kubernetes.io/serviceaccount/{namespace,secret.name,
 * service-account.name,service-account.uid}` claims.
 */
export function signLegacyToken(privateKey: KeyObject, s: LegacyTokenSubject, keyId = serviceAccountKeyId(privateKey)): Promise<string> {
  return new SignJWT({
    'kubernetes.io/serviceaccount/namespace': s.namespace,
    'kubernetes.io/serviceaccount/secret.name': s.secretName,
    'kubernetes.io/serviceaccount/service-account.name': s.serviceAccountName,
    'kubernetes.io/serviceaccount/service-account.uid': s.serviceAccountUid,
  })
    .setProtectedHeader({ alg: 'RS256', kid: keyId })
    .setIssuer(LEGACY_ISSUER)
    .setSubject(`system:serviceaccount:${s.namespace}:${s.serviceAccountName}`)
    .sign(privateKey);
}
