/**
 * Records a create, update or non-apply patch in managedFields (upstream
 * FieldManager.Update): the writer, as an `Update` manager, takes the fields
 * it added or changed; the others lose them and whatever it removed.
 */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import type { KubeObject } from '../../api/object.js';
import { addedFields, changedFields, compareObjects, type Comparison } from './compare.js';
import { decodeManagedFields, defaultResetFields, encodeManagedFields, formatTime, ownableFields, ownerId, type FieldOwner } from './field-owners.js';
import { FieldSet } from './field-set.js';
import { deducedSchema, type ListSchema } from './list-schema.js';
import { isResetManagedFields, ownersOf, shallowWithoutManagedFields } from './managed-object.js';
import { releaseChangedFields } from './ownership.js';

export interface UpdateManagedFieldsOptions {
  /** The stored object; undefined on create. */
  old?: KubeObject;
  /** The object about to be stored, as the request left it (its managedFields may be the client's). */
  new: KubeObject;
  /** The request's fieldManager, or managerFromUserAgent() of its User-Agent. */
  manager: string;
  /** The apiVersion the request used, e.g. `apps/v1`. */
  apiVersion: string;
  time: Date;
  /** `status`, `scale`, ... for writes to a subresource. */
  subresource?: string;
  schema?: ListSchema;
  /** Fields the write cannot own; defaults to defaultResetFields(subresource). */
  resetFields?: FieldSet;
}

/** The managedFields to store with `new` (empty: store none). */
export function updateManagedFields(o: UpdateManagedFieldsOptions): ManagedFieldsEntry[] {
  const schema = o.schema ?? deducedSchema;
  const owners = startingOwners(o);
  // a create changes every field: skip the comparison; the comparison only reads, so it needs no copies
  const c: Comparison = o.old
    ? compareObjects(shallowWithoutManagedFields(o.old), shallowWithoutManagedFields(o.new), schema)
    : { added: addedFields(shallowWithoutManagedFields(o.new), schema), modified: new FieldSet(), removed: new FieldSet() };
  const writer: FieldOwner = { manager: o.manager, operation: 'Update', apiVersion: o.apiVersion, fields: ownableFields(changedFields(c), o.resetFields ?? defaultResetFields(o.subresource)) };
  if (o.subresource) writer.subresource = o.subresource;
  // Like upstream, the write acts as a fresh manager, so the same manager's
  // earlier entry also gives up what this write changed, then the two merge.
  const rest = releaseChangedFields(owners, c, '');
  if (writer.fields.isEmpty()) return encodeManagedFields(rest);
  const id = ownerId(writer);
  const previous = rest.find((p) => ownerId(p) === id);
  // a writer that takes no new field keeps its earlier set (and so its cached encoding)
  let fields = !previous ? writer.fields : writer.fields.isSubsetOf(previous.fields) ? previous.fields : previous.fields.union(writer.fields);
  // so does a manager that rewrote exactly the fields it had (a status or lease renewal)
  const before = owners.find((p) => ownerId(p) === id);
  if (before && before.fields !== fields && before.fields.isFrozen() && fields.isSubsetOf(before.fields) && before.fields.isSubsetOf(fields)) fields = before.fields;
  const merged: FieldOwner = { ...writer, fields, time: formatTime(o.time) };
  return encodeManagedFields([...rest.filter((p) => p !== previous), merged]);
}

/**
 * Whose ownership the write starts from: a client may set managedFields
 * itself (kubectl does, to migrate client-side apply ownership), or clear
 * them; otherwise, and always for subresources, the stored ones count.
 */
function startingOwners(o: UpdateManagedFieldsOptions): FieldOwner[] {
  const requested = o.new.metadata?.managedFields;
  if (o.subresource) return ownersOf(o.old);
  if (isResetManagedFields(requested)) return [];
  try {
    const fromRequest = decodeManagedFields(requested);
    if (fromRequest.length > 0) return fromRequest;
  } catch {
    // an undecodable request falls back to the stored record, as upstream
  }
  return ownersOf(o.old);
}
