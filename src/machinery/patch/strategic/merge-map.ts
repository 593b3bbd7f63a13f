import { getOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../json-value.js';
import { normalizeElementOrder, partitionByPresence } from './element-order.js';
import { mergeListField } from './merge-list.js';
import type { PatchSchema } from './patch-schema.js';
import {
  DELETE_FROM_PRIMITIVE_LIST_PREFIX,
  DIRECTIVE_MARKER,
  kindOf,
  patchValueAsIs,
  RETAIN_KEYS_DIRECTIVE,
  SET_ELEMENT_ORDER_PREFIX,
  sliceElementKind,
} from './patch-values.js';
import { validateSetElementOrder } from './set-element-order.js';
import {
  badArgType,
  badPatchFormatForPrimitiveList,
  badPatchFormatForRetainKeys,
  badPatchFormatForSetElementOrderList,
  badPatchType,
} from './strategic-errors.js';

/**
 * Merges a patch map into an original map (upstream's mergeMap with the
 * server-side options: parallel lists are applied, unmatched nulls dropped).
 * Both arguments are private copies and may be changed; the result is one
 * of them or a new map.
 */
export function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchSchema): JsonObject {
  if (Object.hasOwn(patch, DIRECTIVE_MARKER)) {
    const directive = patch[DIRECTIVE_MARKER];
    if (directive === 'replace') {
      delete patch[DIRECTIVE_MARKER];
      return patchValueAsIs(patch).value as JsonObject;
    }
    if (directive === 'delete') return {};
    throw badPatchType(directive, patch);
  }
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, schema);

  for (const key of Object.keys(patch)) {
    const patchV = patch[key];
    let field = key;
    let isDeleteList = false;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      field = fieldOfDirective(key, DELETE_FROM_PRIMITIVE_LIST_PREFIX) ?? throwError(badPatchFormatForPrimitiveList());
      isDeleteList = true;
    }
    if (patchV === null) {
      delete original[field];
      continue;
    }
    const originalV = getOwn(original, field);
    if (originalV === undefined || kindOf(originalV) !== kindOf(patchV)) {
      // a new field, or one whose type changes: the patch value stands
      if (isDeleteList) continue;
      const r = patchValueAsIs(patchV);
      if (r.keep) setOwn(original, field, r.value);
      else delete original[field];
      continue;
    }
    const lookup = schema.lookup(field);
    if (isJsonObject(originalV) && isJsonObject(patchV)) {
      const merged = lookup.patchStrategy === 'replace' ? (patchValueAsIs(patchV).value as JsonObject) : mergeMap(originalV, patchV, lookup.schema);
      setOwn(original, field, merged);
    } else if (Array.isArray(originalV) && Array.isArray(patchV)) {
      setOwn(original, field, mergeListField(originalV, patchV, { ...lookup, isDeleteList }, mergeMap));
    } else {
      setOwn(original, field, patchV);
    }
  }
  return original;
}

function throwError(err: Error): never {
  throw err;
}

/** `<prefix>/<field>` → field; undefined when the key is malformed. */
function fieldOfDirective(key: string, prefix: string): string | undefined {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) return undefined;
  return key.slice(slash + 1);
}

/**
 * `$retainKeys: [a, b]` clears every original field not listed; the patch
 * itself may only set listed fields.
 */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const retain = patch[RETAIN_KEYS_DIRECTIVE];
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (!Array.isArray(retain)) throw badPatchFormatForRetainKeys();
  const keep = new Set(retain.filter((k): k is string => typeof k === 'string'));
  for (const key of Object.keys(patch)) {
    if (patch[key] === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!keep.has(key)) throw badPatchFormatForRetainKeys();
  }
  for (const key of Object.keys(original)) if (!keep.has(key)) delete original[key];
}

/**
 * Processes every `$setElementOrder/<field>` of the patch together with its
 * list: merges the list, then orders it as the directive says (the
 * directive's order wins over the patch list's, which wins over the
 * server's). Both the directive and the list leave the patch.
 */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, schema: PatchSchema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType('list', order);
    const field = fieldOfDirective(key, SET_ELEMENT_ORDER_PREFIX) ?? throwError(badPatchFormatForSetElementOrderList());
    const originalList = getOwn(original, field);
    const patchList = getOwn(patch, field);
    if (originalList !== undefined && !Array.isArray(originalList)) throw badArgType('list', originalList);
    if (patchList !== undefined && !Array.isArray(patchList)) throw badArgType('list', patchList);
    const lookup = schema.lookup(field);
    const mergeKey = lookup.patchMergeKey;
    validateSetElementOrder(patchList ?? [], order, mergeKey);

    let merged: JsonValue[];
    if (originalList === undefined && patchList === undefined) continue;
    else if (patchList === undefined) merged = originalList!;
    else if (originalList === undefined) merged = patchValueAsIs(patchList).value as JsonValue[];
    else merged = mergeListField(originalList, patchList, { ...lookup, isDeleteList: false }, mergeMap);

    const { inPatch, serverOnly } = partitionByPresence(merged, order, mergeKey);
    const kind = sliceElementKind(originalList ?? [], patchList ?? []);
    setOwn(original, field, normalizeElementOrder(inPatch, serverOnly, order, originalList ?? [], mergeKey, kind));
    delete patch[field];
  }
}
