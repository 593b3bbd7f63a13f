/**
 * How lists and maps of the built-in types merge: the facts behind strategic
 * merge patch (`patchStrategy`, `patchMergeKey`) and server-side apply
 * (`listType`, `listMapKeys`, `mapType`, `structType`), as upstream publishes
 * them in its OpenAPI extensions (x-kubernetes-patch-strategy, ...).
 *
 * Keyed by `<group-version module>.<TypeName>` as in kubernetes-types, e.g.
 * `core/v1.PodSpec`, then by JSON field name.
 */
export interface FieldPatchMeta {
  patchStrategy?: 'merge' | 'retainKeys' | 'merge,retainKeys' | 'replace';
  patchMergeKey?: string;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  mapType?: 'atomic' | 'granular';
  structType?: 'atomic' | 'granular';
}

export type PatchMetadataTable = Record<string, Record<string, FieldPatchMeta>>;

import { PATCH_METADATA } from './patch-metadata-table.js';
import { TYPE_GRAPH } from './type-graph.js';

export { PATCH_METADATA, ATOMIC_STRUCT_TYPES } from './patch-metadata-table.js';
export { TYPE_GRAPH } from './type-graph.js';

/** The schema type name of a kind, e.g. ('apps', 'v1', 'Deployment') → `apps/v1.Deployment`; undefined if unknown. */
export function schemaTypeName(group: string, version: string, kind: string): string | undefined {
  const name = `${group === '' ? 'core' : group.split('.')[0]}/${version}.${kind}`;
  return Object.hasOwn(TYPE_GRAPH, name) ? name : undefined;
}

/**
 * The object type a field of an object type holds (the element type for a
 * list, the value type for a map), or undefined when the field holds scalars
 * or either is unknown.
 */
export function fieldTypeName(typeName: string, field: string): string | undefined {
  const edges = Object.hasOwn(TYPE_GRAPH, typeName) ? TYPE_GRAPH[typeName] : undefined;
  const child = edges && Object.hasOwn(edges, field) ? edges[field] : undefined;
  return child?.replace(/^\{\}/, '');
}

/** Whether a field holds a map of object types (so its keys are names, not fields). */
export function isMapOfObjects(typeName: string, field: string): boolean {
  const edges = Object.hasOwn(TYPE_GRAPH, typeName) ? TYPE_GRAPH[typeName] : undefined;
  return !!edges && Object.hasOwn(edges, field) && edges[field].startsWith('{}');
}

/** The patch metadata of one field, or undefined when it has none. */
export function fieldPatchMeta(typeName: string, field: string): FieldPatchMeta | undefined {
  const fields = Object.hasOwn(PATCH_METADATA, typeName) ? PATCH_METADATA[typeName] : undefined;
  return fields && Object.hasOwn(fields, field) ? fields[field] : undefined;
}

/**
 * The type at a path of field names below a kind (list indexes and map keys
 * are not part of the path: a list field leads to its element type), e.g.
 * (apps/v1 Deployment, ['spec', 'template', 'spec']) → `core/v1.PodSpec`.
 */
export function resolveTypeAtPath(root: { group: string; version: string; kind: string }, path: readonly string[]): string | undefined {
  let type = schemaTypeName(root.group, root.version, root.kind);
  for (const field of path) {
    if (type === undefined) return undefined;
    type = fieldTypeName(type, field);
  }
  return type;
}
