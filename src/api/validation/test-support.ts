import { findKind } from '../resources.js';
import type { ResourceInfo } from '../resource-info.js';
import type { KubeObject } from '../object.js';
import { applyDefaults } from '../defaults/index.js';
import { fieldErrorMessage } from './field-error.js';
import { validateObject, validateObjectUpdate } from './index.js';

/** Test helpers: resolve a kind, default a fixture like the API server would, and render errors as upstream strings. */
export function info(group: string, kind: string): ResourceInfo {
  const r = findKind(group, 'v1', kind);
  if (!r) throw new Error(`no resource for ${group}/${kind}`);
  return r;
}

export function messagesFor(obj: object, group = '', kind = (obj as KubeObject).kind ?? ''): string[] {
  const r = info(group, kind);
  const copy = structuredClone(obj) as KubeObject;
  applyDefaults(copy, r);
  return validateObject(copy, r).map(fieldErrorMessage);
}

export function updateMessagesFor(obj: object, old: object, group = '', kind = (obj as KubeObject).kind ?? ''): string[] {
  const r = info(group, kind);
  const [a, b] = [structuredClone(obj) as KubeObject, structuredClone(old) as KubeObject];
  applyDefaults(a, r);
  applyDefaults(b, r);
  return validateObjectUpdate(a, b, r).map(fieldErrorMessage);
}
