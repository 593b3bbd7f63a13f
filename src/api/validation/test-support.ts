import { findKind } from '../resources.js';
import type { ResourceInfo } from '../resource-info.js';
import type { KubeObject } from '../object.js';
import { applyDefaults } from '../defaults/index.js';
import { fieldErrorMessage } from './field-error.js';
import { validateObject, validateObjectUpdate } from './index.js';

/** Test helpers: resolve a kind, default a fixture like the API server would, and render errors as upstream strings. */
export function info(group: string, kind: string): ResourceInfo {
  const version = group === '' ? 'v1' : 'v1';
  const r = findKind(group, version, kind);
  if (!r) throw new Error(`no resource for ${group}/${kind}`);
  return r;
}

export function messagesFor(obj: KubeObject, group = '', kind = obj.kind ?? ''): string[] {
  const r = info(group, kind);
  const copy = structuredClone(obj);
  applyDefaults(copy, r);
  return validateObject(copy, r).map(fieldErrorMessage);
}

export function updateMessagesFor(obj: KubeObject, old: KubeObject, group = '', kind = obj.kind ?? ''): string[] {
  const r = info(group, kind);
  const [a, b] = [structuredClone(obj), structuredClone(old)];
  applyDefaults(a, r);
  applyDefaults(b, r);
  return validateObjectUpdate(a, b, r).map(fieldErrorMessage);
}
