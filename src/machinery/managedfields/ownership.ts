/**
 * How a write moves ownership between managers (upstream merge.Updater's
 * update step): every other manager that owns a field the write changed is
 * in conflict with it, and loses that field when the write goes ahead;
 * fields the write removed are dropped from everyone.
 */
import type { ApplyConflict } from './apply-conflict.js';
import type { Comparison } from './compare.js';
import { changedFields } from './compare.js';
import { ownerId, type FieldOwner } from './field-owners.js';

export function findConflicts(owners: readonly FieldOwner[], c: Comparison, writerId: string): ApplyConflict[] {
  const changed = changedFields(c);
  const out: ApplyConflict[] = [];
  for (const o of owners) {
    if (ownerId(o) === writerId) continue;
    for (const path of o.fields.intersection(changed).paths()) {
      out.push({ owner: { manager: o.manager, operation: o.operation, apiVersion: o.apiVersion, subresource: o.subresource }, path });
    }
  }
  return out;
}

/** Every manager but the writer loses the fields the write changed or removed; emptied managers go. */
export function releaseChangedFields(owners: readonly FieldOwner[], c: Comparison, writerId: string): FieldOwner[] {
  if (owners.length === 0) return [];
  const lost = changedFields(c).union(c.removed);
  return owners
    // an owner that loses nothing keeps its set (and so its cached encoding)
    .map((o) => (ownerId(o) === writerId || !o.fields.intersects(lost) ? o : { ...o, fields: o.fields.difference(lost) }))
    .filter((o) => !o.fields.isEmpty());
}
