/** Reading and writing the managedFields of a whole object. */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import type { KubeObject } from '../../api/object.js';
import type { JsonObject } from '../patch/json-value.js';
import { cloneJson } from '../patch/json-value.js';
import { decodeManagedFields, type FieldOwner } from './field-owners.js';

/** A JSON copy of the object without metadata.managedFields, for computing field sets. */
export function withoutManagedFields(obj: KubeObject | undefined): JsonObject {
  if (!obj) return {};
  const copy = cloneJson(obj) as JsonObject;
  const meta = copy.metadata;
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) delete meta.managedFields;
  return copy;
}

/** The object without metadata.managedFields, sharing everything else (for read-only walks). */
export function shallowWithoutManagedFields(obj: KubeObject): JsonObject {
  const meta = obj.metadata;
  if (!meta || meta.managedFields === undefined) return obj as JsonObject;
  const { managedFields: _mf, ...rest } = meta;
  return { ...obj, metadata: rest } as JsonObject;
}

/** The owners recorded on an object; a malformed record counts as none, as upstream treats it. */
export function ownersOf(obj: KubeObject | undefined): FieldOwner[] {
  try {
    return decodeManagedFields(obj?.metadata?.managedFields);
  } catch {
    return [];
  }
}

/** Sets (or, when empty, removes) metadata.managedFields on `obj` in place. */
export function setManagedFields(obj: KubeObject, entries: ManagedFieldsEntry[]): void {
  obj.metadata ??= {};
  if (entries.length > 0) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}

/** `managedFields: []` or `[{}]` in a write asks to clear all ownership (upstream isResetManagedFields). */
export function isResetManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): boolean {
  if (entries === undefined) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && Object.keys(entries[0]).length === 0;
}
