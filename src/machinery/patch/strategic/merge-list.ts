import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../json-value.js';
import { normalizeElementOrder, partitionByPresence } from './element-order.js';
import type { PatchSchema } from './patch-schema.js';
import { DIRECTIVE_MARKER, patchValueAsIs, scalarEqual, sliceElementKind } from './patch-values.js';
import { badPatchType, noMergeKey, patchFailed } from './strategic-errors.js';

/** Merges one patch map into one original map (mergeMap), passed in to keep the two files acyclic. */
export type MergeMapFunc = (original: JsonObject, patch: JsonObject, schema: PatchSchema) => JsonObject;

export interface ListField {
  /** Schema of the elements. */
  schema: PatchSchema;
  patchStrategy: string;
  patchMergeKey: string;
  /** The patch list came from `$deleteFromPrimitiveList/<field>`. */
  isDeleteList: boolean;
}

/** Merges a patch list into an original list as the field's strategy says (mergeSliceHandler). */
export function mergeListField(original: JsonValue[], patch: JsonValue[], field: ListField, mergeMap: MergeMapFunc): JsonValue[] {
  // delete lists act the same whatever the field's strategy
  if (field.patchStrategy === 'merge' || field.isDeleteList) return mergeList(original, patch, field, mergeMap);
  return patchValueAsIs(patch).value as JsonValue[];
}

function mergeList(originalIn: JsonValue[], patchIn: JsonValue[], field: ListField, mergeMap: MergeMapFunc): JsonValue[] {
  if (originalIn.length === 0 && patchIn.length === 0) return originalIn;
  const kind = sliceElementKind(originalIn, patchIn);
  const mergeKey = field.patchMergeKey;
  let original = originalIn;
  let patch = patchIn;
  let merged: JsonValue[];
  if (kind !== 'map') {
    if (field.isDeleteList) return original.filter((v) => !patch.some((d) => scalarEqual(d, v)));
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (mergeKey === '') throw patchFailed(`cannot merge lists without merge key for ${field.schema.name}`);
    ({ original, patch } = applySpecialElements(original, patch, mergeKey));
    merged = mergeByKey(original, patch, mergeKey, field.schema, mergeMap);
  }
  const { inPatch, serverOnly } = partitionByPresence(merged, patch, kind === 'map' ? mergeKey : '');
  return normalizeElementOrder(inPatch, serverOnly, patch, original, kind === 'map' ? mergeKey : '', kind);
}

/**
 * Applies the `$patch` elements of a list of maps: `delete` removes every
 * original element with that merge key, `replace` makes the rest of the
 * patch the whole list. Returns the new original and the plain patch items.
 */
function applySpecialElements(original: JsonValue[], patch: JsonValue[], mergeKey: string): { original: JsonValue[]; patch: JsonValue[] } {
  const plain: JsonValue[] = [];
  let replace = false;
  let kept = original;
  for (const v of patch) {
    const item = v as JsonObject;
    if (!Object.hasOwn(item, DIRECTIVE_MARKER)) {
      plain.push(v);
      continue;
    }
    const directive = item[DIRECTIVE_MARKER];
    if (directive === 'delete') {
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      const key = item[mergeKey];
      kept = kept.filter((o) => {
        if (!isJsonObject(o)) throw patchFailed(`value for key ${kept.indexOf(o)} is not a map.`);
        return !(Object.hasOwn(o, mergeKey) && scalarEqual(o[mergeKey], key));
      });
    } else if (directive === 'replace') {
      replace = true; // keep going: the other $patch elements must still be dropped
    } else if (directive === 'merge') {
      throw patchFailed('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, item);
    }
  }
  if (replace) return { original: plain.map((v) => patchValueAsIs(v).value), patch: [] };
  return { original: kept, patch: plain };
}

/** Merges each patch element into the original element with the same merge key, or appends it. */
function mergeByKey(original: JsonValue[], patch: JsonValue[], mergeKey: string, schema: PatchSchema, mergeMap: MergeMapFunc): JsonValue[] {
  const out = [...original];
  for (const v of patch) {
    const item = v as JsonObject;
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const key = item[mergeKey];
    const at = out.findIndex((o) => {
      if (!isJsonObject(o)) throw patchFailed(`value for key ${out.indexOf(o)} is not a map.`);
      return Object.hasOwn(o, mergeKey) && scalarEqual(getOwn(o, mergeKey), key);
    });
    if (at >= 0) out[at] = mergeMap(out[at] as JsonObject, item, schema);
    else {
      const added = patchValueAsIs(item);
      if (added.keep) out.push(added.value);
    }
  }
  return out;
}

/** Upstream's in-place deduplication: a duplicate is overwritten by the last item. The order is fixed afterwards. */
function deduplicateScalars(list: JsonValue[]): JsonValue[] {
  const s = [...list];
  let last = s.length - 1;
  for (let i = 0; i < last; i++) {
    for (let j = i + 1; j <= last; j++) {
      if (scalarEqual(s[i], s[j])) {
        s[j] = s[last];
        s.length = last;
        last--;
        j--;
      }
    }
  }
  return s;
}
