/**
 * A ListSchema for the built-in kinds, read from the patch metadata table and
 * the type graph in src/api/schema. Kinds without a schema get upstream's
 * deduced behaviour (atomic lists).
 */
import { ATOMIC_STRUCT_TYPES, fieldPatchMeta, fieldTypeName, isMapOfObjects, schemaTypeName, type FieldPatchMeta } from '../../api/schema/patch-metadata.js';
import { deducedSchema, type ListSchema, type ListType } from './list-schema.js';

export interface KindRef {
  group: string;
  version: string;
  kind: string;
}

/** Where a path of field names ends: the holding type and the field's metadata. */
interface Resolved {
  /** The type of the object at the path, if it is an object type. */
  type?: string;
  meta?: FieldPatchMeta;
}

// Upstream defaults `protocol` to TCP in its OpenAPI, which lets apply
// configurations omit it from port keys (structured-merge-diff reads the default).
const KEY_DEFAULTS = { protocol: 'TCP' } as const;

export function listSchemaForKind(kind: KindRef): ListSchema {
  const root = schemaTypeName(kind.group, kind.version, kind.kind);
  if (root === undefined) return deducedSchema;
  const cache = new Map<string, Resolved>();

  const resolve = (path: readonly string[]): Resolved => {
    const cacheKey = path.join('\u0000');
    const hit = cache.get(cacheKey);
    if (hit) return hit;
    let type: string | undefined = root;
    let meta: FieldPatchMeta | undefined;
    // After a map-of-objects field, the next segment is a key, not a field.
    let mapKeyNext = false;
    let out: Resolved = {};
    for (let i = 0; i <= path.length; i++) {
      if (i === path.length) {
        out = { type, meta };
        break;
      }
      if (type === undefined) break;
      if (mapKeyNext) {
        mapKeyNext = false;
        meta = undefined;
        continue;
      }
      meta = fieldPatchMeta(type, path[i]);
      mapKeyNext = isMapOfObjects(type, path[i]);
      type = fieldTypeName(type, path[i]);
    }
    cache.set(cacheKey, out);
    return out;
  };

  return {
    listTypeAt(path) {
      return listTypeOf(resolve(path).meta);
    },
    mapTypeAt(path) {
      const { type, meta } = resolve(path);
      if (meta?.mapType === 'atomic' || meta?.structType === 'atomic') return 'atomic';
      return type !== undefined && ATOMIC_STRUCT_TYPES.has(type) ? 'atomic' : 'granular';
    },
  };
}

function listTypeOf(meta: FieldPatchMeta | undefined): ListType {
  if (meta?.listType === 'map' && meta.listMapKeys?.length) return withDefaults(meta.listMapKeys);
  if (meta?.listType === 'set') return { type: 'set' };
  if (meta?.listType === 'atomic' || !meta) return { type: 'atomic' };
  const strategies = (meta.patchStrategy ?? '').split(',');
  if (strategies.includes('merge')) return meta.patchMergeKey ? withDefaults([meta.patchMergeKey]) : { type: 'set' };
  return { type: 'atomic' };
}

function withDefaults(keys: readonly string[]): ListType {
  const keyDefaults = Object.fromEntries(keys.filter((k) => Object.hasOwn(KEY_DEFAULTS, k)).map((k) => [k, KEY_DEFAULTS[k as keyof typeof KEY_DEFAULTS]]));
  return Object.keys(keyDefaults).length > 0 ? { type: 'map', keys, keyDefaults } : { type: 'map', keys };
}
