/**
 * Server-side apply (upstream FieldManager.Apply over structured-merge-diff's
 * Updater.Apply): merge the configuration into the live object, make its
 * field set the manager's `Apply` set, prune what the manager applied before
 * but dropped now and nobody else owns, and refuse to change fields other
 * managers own unless forced.
 */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import type { KubeObject } from '../../api/object.js';
import { badRequest } from '../api-error.js';
import type { JsonObject } from '../patch/json-value.js';
import { cloneJson, isJsonObject, jsonEqual } from '../patch/json-value.js';
import type { ApplyConflict } from './apply-conflict.js';
import { changedFields, compareObjects } from './compare.js';
import { defaultResetFields, encodeManagedFields, formatTime, ownableFields, ownerId, STRIPPED_FIELDS, type FieldOwner } from './field-owners.js';
import type { FieldSet } from './field-set.js';
import { allowedConflictsFromLastApplied, hasLastApplied, KUBECTL_APPLY_MANAGER, syncLastApplied } from './last-applied.js';
import { deducedSchema, type ListSchema } from './list-schema.js';
import { ownersOf, setManagedFields, withoutManagedFields } from './managed-object.js';
import { findConflicts, releaseChangedFields } from './ownership.js';
import { mergeApplied } from './merge-applied.js';
import { removeFields } from './remove-fields.js';
import { objectToFieldSet } from './to-field-set.js';

/** Upstream's name for the owner of everything an object held before its first apply. */
export const BEFORE_FIRST_APPLY_MANAGER = 'before-first-apply';

export interface ApplyOptions {
  /** The stored object; undefined when the apply creates it. */
  current?: KubeObject;
  /** The apply configuration from the request body. */
  applied: KubeObject;
  manager: string;
  force: boolean;
  /** The apiVersion of the request's resource, e.g. `apps/v1`; the configuration must use it. */
  apiVersion: string;
  time: Date;
  subresource?: string;
  schema?: ListSchema;
  /** Fields the apply cannot own; defaults to defaultResetFields(subresource). */
  resetFields?: FieldSet;
}

export type ApplyResult =
  | { object: KubeObject; managedFields: ManagedFieldsEntry[]; conflicts?: undefined }
  | { conflicts: ApplyConflict[] };

/**
 * Returns the object to store (managedFields set) or the conflicts; throws a
 * 400 ApiError for a configuration upstream rejects outright.
 */
export function apply(o: ApplyOptions): ApplyResult {
  validateConfiguration(o.applied, o.apiVersion);
  const schema = o.schema ?? deducedSchema;
  const resetFields = o.resetFields ?? defaultResetFields(o.subresource);
  const live = withoutManagedFields(o.current);
  const config = cloneJson(o.applied) as JsonObject;
  const now = formatTime(o.time);

  let owners = ownersOf(o.current);
  if (o.current && owners.length === 0) owners = [beforeFirstApply(live, o, schema, resetFields, now)];

  const me: FieldOwner = { manager: o.manager, operation: 'Apply', apiVersion: o.apiVersion, fields: ownableFields(objectToFieldSet(config, schema), resetFields) };
  if (o.subresource) me.subresource = o.subresource;
  const myId = ownerId(me);
  const previous = owners.find((p) => ownerId(p) === myId);
  if (previous?.time) me.time = previous.time;
  const others = owners.filter((p) => p !== previous);

  let merged = mergeApplied(live, config, schema);
  if (previous) merged = prune(merged, previous.fields, others, objectToFieldSet(config, schema), schema);

  const c = compareObjects(live, merged, schema);
  const conflicts = findConflicts(others, c, myId);
  if (conflicts.length > 0 && !o.force) {
    const remaining = conflictsNotAllowedByLastApplied(conflicts, o, schema);
    if (remaining.length > 0) return { conflicts: remaining };
  }

  if (!previous || !jsonEqual(live, merged)) me.time = now;
  const managedFields = encodeManagedFields([...releaseChangedFields(others, c, myId), me]);
  const object = merged as KubeObject;
  if (o.manager === KUBECTL_APPLY_MANAGER && hasLastApplied(o.current)) syncLastApplied(object, o.applied);
  setManagedFields(object, managedFields);
  return { object, managedFields };
}

function validateConfiguration(applied: KubeObject, apiVersion: string): void {
  if (!isJsonObject(applied as unknown)) throw badRequest('error decoding YAML: the apply configuration must be an object');
  if (applied.metadata?.managedFields !== undefined) throw badRequest('metadata.managedFields must be nil');
  if (applied.apiVersion !== apiVersion) {
    throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${applied.apiVersion ?? ''}, expected: ${apiVersion}`);
  }
}

/** An object never applied before: everything it holds belongs to `before-first-apply`. */
function beforeFirstApply(live: JsonObject, o: ApplyOptions, schema: ListSchema, resetFields: FieldSet, now: string): FieldOwner {
  const fields = ownableFields(changedFields(compareObjects({}, live, schema)), resetFields);
  return { manager: BEFORE_FIRST_APPLY_MANAGER, operation: 'Update', apiVersion: o.apiVersion, time: now, fields };
}

/**
 * Removes what the manager applied last time but not now, unless someone
 * (another manager, or this configuration) still owns it. Struct fields
 * count as owned when anything below them is, so a struct emptied by the
 * pruning goes with it (upstream EnsureNamedFieldsAreMembers).
 */
function prune(merged: JsonObject, lastApplied: FieldSet, others: readonly FieldOwner[], configFields: FieldSet, schema: ListSchema): JsonObject {
  let keep = configFields.union(STRIPPED_FIELDS);
  for (const p of others) keep = keep.union(p.fields);
  const keepEnsured = keep.withFieldParentsAsMembers();
  const remove = lastApplied.withFieldParentsAsMembers().difference(keepEnsured);
  return remove.isEmpty() ? merged : removeFields(merged, remove, keepEnsured, schema);
}

function conflictsNotAllowedByLastApplied(conflicts: ApplyConflict[], o: ApplyOptions, schema: ListSchema): ApplyConflict[] {
  if (o.manager !== KUBECTL_APPLY_MANAGER || !o.current) return conflicts;
  const allowed = allowedConflictsFromLastApplied(o.current, schema);
  if (!allowed) return conflicts;
  return conflicts.filter((c) => !allowed.has(c.path));
}
