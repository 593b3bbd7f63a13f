/**
 * `metadata.managedFields` decoded: one FieldOwner per manager identity
 * (manager name, operation, subresource, and for Update the apiVersion; an
 * applier keeps one identity across versions, as upstream).
 */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { FieldSet } from './field-set.js';
import { decodeFieldsV1Shared, encodeFieldsV1Shared } from './fields-v1-cache.js';
import { FieldPathError, fieldPath } from './path-element.js';

export type ManagedFieldsOperation = 'Apply' | 'Update';

export interface FieldOwner {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  subresource?: string;
  /** RFC 3339, whole seconds. */
  time?: string;
  fields: FieldSet;
}

export interface OwnerIdentity {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  subresource?: string;
}

export function ownerId(o: OwnerIdentity): string {
  return JSON.stringify([o.manager, o.operation, o.operation === 'Apply' ? '' : o.apiVersion, o.subresource ?? '']);
}

/** Decodes entries; throws FieldPathError on a malformed one (callers fall back as upstream does). The sets may be shared and frozen: never mutate them. */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): FieldOwner[] {
  const byId = new Map<string, FieldOwner>();
  for (const e of entries ?? []) {
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new FieldPathError(`invalid managedFields operation ${JSON.stringify(e.operation)}`);
    if (e.fieldsType !== undefined && e.fieldsType !== 'FieldsV1') throw new FieldPathError(`invalid managedFields fieldsType ${JSON.stringify(e.fieldsType)}`);
    const owner: FieldOwner = {
      manager: e.manager ?? '',
      operation: e.operation,
      apiVersion: e.apiVersion ?? '',
      fields: e.fieldsV1 === undefined ? new FieldSet() : decodeFieldsV1Shared(e.fieldsV1),
    };
    if (e.subresource) owner.subresource = e.subresource;
    if (e.time) owner.time = e.time;
    const id = ownerId(owner);
    const prev = byId.get(id);
    byId.set(id, prev ? { ...owner, fields: prev.fields.union(owner.fields) } : owner);
  }
  return [...byId.values()];
}

/** Encodes owners with non-empty sets, sorted as upstream: Apply first, then by time, manager, apiVersion, subresource. */
export function encodeManagedFields(owners: readonly FieldOwner[]): ManagedFieldsEntry[] {
  return owners
    .filter((o) => !o.fields.isEmpty())
    .sort(compareOwners)
    .map((o) => {
      const entry: ManagedFieldsEntry = { manager: o.manager, operation: o.operation, apiVersion: o.apiVersion };
      if (o.time) entry.time = o.time;
      entry.fieldsType = 'FieldsV1';
      entry.fieldsV1 = encodeFieldsV1Shared(o.fields);
      if (o.subresource) entry.subresource = o.subresource;
      return entry;
    });
}

function compareOwners(a: FieldOwner, b: FieldOwner): number {
  const ta = a.time ? Date.parse(a.time) : 0;
  const tb = b.time ? Date.parse(b.time) : 0;
  return (
    cmp(a.operation, b.operation) ||
    ta - tb ||
    cmp(a.manager, b.manager) ||
    cmp(a.apiVersion, b.apiVersion) ||
    cmp(a.subresource ?? '', b.subresource ?? '')
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Fields nobody owns: identity and system-set metadata (upstream stripMetaManager). */
export const STRIPPED_FIELDS = FieldSet.of(
  fieldPath('apiVersion'),
  fieldPath('kind'),
  fieldPath('metadata'),
  fieldPath('metadata', 'name'),
  fieldPath('metadata', 'namespace'),
  fieldPath('metadata', 'creationTimestamp'),
  fieldPath('metadata', 'selfLink'),
  fieldPath('metadata', 'uid'),
  fieldPath('metadata', 'clusterName'),
  fieldPath('metadata', 'generation'),
  fieldPath('metadata', 'managedFields'),
  fieldPath('metadata', 'resourceVersion'),
);

/**
 * What a write may own: the stripped metadata never, and the fields the
 * resource's strategy resets (status on the main resource, spec on status)
 * never, since the write could not have changed them.
 */
export function ownableFields(set: FieldSet, resetFields?: FieldSet): FieldSet {
  const stripped = set.difference(STRIPPED_FIELDS);
  return resetFields ? stripped.recursiveDifference(resetFields) : stripped;
}

/**
 * The fields a write through `subresource` cannot change, for kinds whose
 * strategies follow the usual pattern (upstream GetResetFields).
 */
export function defaultResetFields(subresource?: string): FieldSet {
  if (subresource === 'status') return FieldSet.of(fieldPath('spec'));
  if (subresource) return new FieldSet();
  return FieldSet.of(fieldPath('status'));
}

/** managedFields store times as metav1.Time does: RFC 3339, whole seconds, UTC. */
export { formatTime } from '../time.js';
