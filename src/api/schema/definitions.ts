import { readFileSync } from 'node:fs';
import { ATOMIC_STRUCT_TYPES, PATCH_METADATA, type FieldPatchMeta, type PatchMetadataTable } from './patch-metadata.js';
import { definitionPrefix, type Definitions, type OpenApiSchema } from './openapi-schema.js';

/**
 * The OpenAPI definitions of the built-in types: the committed file generated
 * from kubernetes-types (scripts/generate-schemas.ts) with the list/map/patch
 * extensions of the patch-metadata table laid over it at load time, so that
 * growing that table never makes the committed file stale.
 */

let cache: Definitions | undefined;
let kindIndex: Map<string, string> | undefined;

export function builtinDefinitions(): Definitions {
  if (!cache) {
    const raw = JSON.parse(readFileSync(new URL('./generated/definitions.json', import.meta.url), 'utf8')) as Definitions;
    cache = withPatchMetadata(raw, PATCH_METADATA, ATOMIC_STRUCT_TYPES);
  }
  return cache;
}

/** The definition name of a top-level kind, e.g. `io.k8s.api.apps.v1.Deployment`. */
export function definitionNameForKind(group: string, version: string, kind: string): string | undefined {
  if (!kindIndex) {
    kindIndex = new Map();
    for (const [name, schema] of Object.entries(builtinDefinitions())) {
      for (const gvk of schema['x-kubernetes-group-version-kind'] ?? []) kindIndex.set(gvkKey(gvk.group, gvk.version, gvk.kind), name);
    }
  }
  return kindIndex.get(gvkKey(group, version, kind));
}

function gvkKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

/** Returns a copy of `defs` with the table's facts as `x-kubernetes-*` extensions. */
export function withPatchMetadata(defs: Definitions, table: PatchMetadataTable, atomicStructs: ReadonlySet<string> = new Set()): Definitions {
  const out: Definitions = { ...defs };
  for (const typeKey of atomicStructs) {
    const name = definitionName(typeKey);
    if (out[name]) out[name] = { ...out[name], 'x-kubernetes-map-type': 'atomic' };
  }
  for (const [typeKey, fields] of Object.entries(table)) {
    const name = definitionName(typeKey);
    const def = out[name];
    if (!def?.properties) continue;
    const properties = { ...def.properties };
    for (const [field, meta] of Object.entries(fields)) {
      if (properties[field]) properties[field] = { ...properties[field], ...extensionsOf(meta) };
    }
    out[name] = { ...def, properties };
  }
  return out;
}

/** `core/v1.PodSpec` → `io.k8s.api.core.v1.PodSpec`. */
function definitionName(typeKey: string): string {
  const dot = typeKey.lastIndexOf('.');
  return `${definitionPrefix(typeKey.slice(0, dot))}.${typeKey.slice(dot + 1)}`;
}

function extensionsOf(meta: FieldPatchMeta): Partial<OpenApiSchema> {
  const ext: Partial<OpenApiSchema> = {};
  if (meta.listMapKeys) ext['x-kubernetes-list-map-keys'] = meta.listMapKeys;
  if (meta.listType) ext['x-kubernetes-list-type'] = meta.listType;
  const mapType = meta.mapType ?? meta.structType;
  if (mapType) ext['x-kubernetes-map-type'] = mapType;
  if (meta.patchMergeKey) ext['x-kubernetes-patch-merge-key'] = meta.patchMergeKey;
  if (meta.patchStrategy) ext['x-kubernetes-patch-strategy'] = meta.patchStrategy;
  return ext;
}
