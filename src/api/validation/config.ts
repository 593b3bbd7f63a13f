import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { child, deepEqual, forbidden, invalid, key, required, tooLong, validateImmutableField, type ErrorList } from './errors.js';
import { isConfigMapKey, nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta } from './object-meta.js';

export const MAX_SECRET_SIZE = 1024 * 1024;
const IMMUTABLE_WHEN_SET = 'field is immutable when `immutable` is set';

/** Decoded byte length of a base64 value (data and binaryData travel base64-encoded). */
function base64Length(value: string): number {
  return Buffer.from(value, 'base64').length;
}

function validateKeys(map: Record<string, string> | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  for (const k of Object.keys(map ?? {})) for (const m of isConfigMapKey(k)) errs.push(invalid(key(path, k), k, m));
  return errs;
}

export function validateConfigMap(cm: ConfigMap): ErrorList {
  const errs = validateObjectMeta(cm.metadata, true, nameIsDNSSubdomain);
  errs.push(...validateKeys(cm.data, 'data'));
  errs.push(...validateKeys(cm.binaryData, 'binaryData'));
  let size = 0;
  for (const v of Object.values(cm.data ?? {})) size += Buffer.byteLength(String(v));
  for (const [k, v] of Object.entries(cm.binaryData ?? {})) {
    if (cm.data && k in cm.data) errs.push(invalid(key('binaryData', k), k, 'duplicate of key present in data'));
    size += base64Length(String(v));
  }
  // An empty path means the error is about the whole object.
  if (size > MAX_SECRET_SIZE) errs.push(tooLong('', MAX_SECRET_SIZE));
  return errs;
}

function validateImmutableData(obj: { immutable?: boolean }, old: { immutable?: boolean }, fields: Record<string, [unknown, unknown]>): ErrorList {
  if (!old.immutable) return [];
  const errs: ErrorList = [];
  if (!obj.immutable) errs.push(forbidden('immutable', IMMUTABLE_WHEN_SET));
  for (const [name, [a, b]] of Object.entries(fields)) if (!deepEqual(a ?? {}, b ?? {})) errs.push(forbidden(name, IMMUTABLE_WHEN_SET));
  return errs;
}

export function validateConfigMapUpdate(cm: ConfigMap, old: ConfigMap): ErrorList {
  return validateImmutableData(cm, old, { data: [cm.data, old.data], binaryData: [cm.binaryData, old.binaryData] });
}

export function validateSecret(secret: Secret): ErrorList {
  const errs = validateObjectMeta(secret.metadata, true, nameIsDNSSubdomain);
  const data = secret.data ?? {};
  errs.push(...validateKeys(data, 'data'));
  let size = 0;
  for (const v of Object.values(data)) size += base64Length(String(v));
  if (size > MAX_SECRET_SIZE) errs.push(tooLong('data', MAX_SECRET_SIZE));
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(data, k);
  const checkJSON = (k: string): void => {
    try {
      JSON.parse(Buffer.from(data[k], 'base64').toString('utf8'));
    } catch (e) {
      errs.push(invalid(key('data', k), '<secret contents redacted>', e instanceof Error ? e.message : 'invalid JSON'));
    }
  };
  switch (secret.type ?? '') {
    case 'kubernetes.io/service-account-token':
      if (!secret.metadata?.annotations?.['kubernetes.io/service-account.name']) {
        errs.push(required(key(child('metadata', 'annotations'), 'kubernetes.io/service-account.name')));
      }
      break;
    case 'kubernetes.io/dockercfg':
      if (!has('.dockercfg')) errs.push(required(key('data', '.dockercfg')));
      else checkJSON('.dockercfg');
      break;
    case 'kubernetes.io/dockerconfigjson':
      if (!has('.dockerconfigjson')) errs.push(required(key('data', '.dockerconfigjson')));
      else checkJSON('.dockerconfigjson');
      break;
    case 'kubernetes.io/basic-auth':
      if (!has('username') && !has('password')) errs.push(required(key('data', 'username')), required(key('data', 'password')));
      break;
    case 'kubernetes.io/ssh-auth':
      if (!data['ssh-privatekey']) errs.push(required(key('data', 'ssh-privatekey')));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errs.push(required(key('data', 'tls.crt')));
      if (!has('tls.key')) errs.push(required(key('data', 'tls.key')));
      break;
    default:
      break;
  }
  return errs;
}

export function validateSecretUpdate(secret: Secret, old: Secret): ErrorList {
  return [
    ...validateImmutableField(secret.type, old.type, 'type'),
    ...validateImmutableData(secret, old, { data: [secret.data, old.data] }),
  ];
}
