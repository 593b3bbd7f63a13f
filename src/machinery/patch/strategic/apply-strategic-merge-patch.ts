import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from '../json-value.js';
import { PatchError } from '../patch-error.js';
import { mergeMap } from './merge-map.js';
import { schemaForKind } from './patch-schema.js';

/** The kind whose schema (patch strategies and merge keys) governs the patch. */
export interface PatchTarget {
  group: string;
  version: string;
  kind: string;
}

/** The target of an object's own `apiVersion` and `kind` (`apps/v1`, `Deployment`). */
export function patchTargetOf(obj: { apiVersion?: string; kind?: string }): PatchTarget {
  const apiVersion = obj.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  return { group: slash < 0 ? '' : apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind: obj.kind ?? '' };
}

/**
 * Applies a strategic merge patch (`application/strategic-merge-patch+json`)
 * to an object as upstream's `strategicpatch.StrategicMergeMapPatch` does on
 * the server: maps merge and `null` deletes; lists whose field has
 * `patchStrategy: merge` merge by their `patchMergeKey` (lists of scalars
 * become unions), other lists are replaced; the directives `$patch`,
 * `$retainKeys`, `$setElementOrder/<field>` and
 * `$deleteFromPrimitiveList/<field>` are honoured. Kinds and fields without
 * schema fall back to JSON merge patch semantics. Neither input is modified.
 *
 * @throws PatchError `InvalidPatch` for a malformed patch, `PatchFailed` when it does not apply.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, target: PatchTarget): JsonValue {
  if (patch === null || patch === undefined) return cloneJson(original);
  if (!isJsonObject(patch)) {
    throw new PatchError('InvalidPatch', `json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type map[string]interface {}`);
  }
  const base = isJsonObject(original) ? (cloneJson(original) as JsonObject) : {};
  return mergeMap(base, cloneJson(patch) as JsonObject, schemaForKind(target));
}

/** The JSON type word Go's decoder uses in its messages. */
function jsonTypeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}
