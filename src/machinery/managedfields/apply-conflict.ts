/**
 * Apply conflicts: fields another manager owns whose value an apply would
 * change. They are values until the API server turns them into the 409 that
 * upstream returns (NewApplyConflict), worded as upstream words it.
 */
import { ApiError, type StatusCause } from '../api-error.js';
import type { OwnerIdentity } from './field-owners.js';
import { pathToString, type Path } from './path-element.js';

export interface ApplyConflict {
  /** The manager that owns the field. */
  owner: OwnerIdentity;
  path: Path;
}

/** `"kubectl-client-side-apply" using apps/v1`, `"x" with subresource "status" using v1`, or just `"x"` for an applier. */
export function describeOwner(o: OwnerIdentity): string {
  let s = JSON.stringify(o.manager);
  if (o.subresource) s += ` with subresource ${JSON.stringify(o.subresource)}`;
  if (o.operation === 'Update') s += ` using ${o.apiVersion}`;
  return s;
}

// Upstream groups conflicts by the JSON identity of the manager and sorts by it.
function identityKey(o: OwnerIdentity): string {
  const id: Record<string, string> = { manager: o.manager, operation: o.operation };
  if (o.operation === 'Update' && o.apiVersion) id.apiVersion = o.apiVersion;
  if (o.subresource) id.subresource = o.subresource;
  return JSON.stringify(id);
}

export function conflictMessage(conflicts: readonly ApplyConflict[]): string {
  if (conflicts.length === 1) {
    const [c] = conflicts;
    return `Apply failed with 1 conflict: conflict with ${describeOwner(c.owner)}: ${pathToString(c.path)}`;
  }
  const groups = new Map<string, ApplyConflict[]>();
  for (const c of conflicts) {
    const k = identityKey(c.owner);
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const lines: string[] = [];
  for (const k of [...groups.keys()].sort()) {
    const group = groups.get(k)!;
    lines.push(`conflicts with ${describeOwner(group[0].owner)}:`);
    for (const c of group) lines.push(`- ${pathToString(c.path)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** The 409 Conflict upstream returns; its details carry one FieldManagerConflict cause per field. */
export function conflictsToApiError(conflicts: readonly ApplyConflict[]): ApiError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${describeOwner(c.owner)}`,
    field: pathToString(c.path),
  }));
  return new ApiError(409, 'Conflict', conflictMessage(conflicts), { causes });
}
