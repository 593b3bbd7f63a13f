import { getOwn, isJsonObject, type JsonValue } from '../json-value.js';
import { DIRECTIVE_MARKER, scalarEqual, type ValueKind } from './patch-values.js';
import { badArgType, noMergeKey } from './strategic-errors.js';

// The order of a merged list (upstream's "preserve order in strategic merge
// patch" design): items named by the patch keep the patch's (or the
// $setElementOrder list's) relative order, items only on the server keep
// theirs, and the two are interleaved by where they stood on the server.

/** The value an item is identified by: its merge key for maps, itself otherwise. */
function identity(item: JsonValue, mergeKey: string, kind: ValueKind): JsonValue | undefined {
  if (kind !== 'map') return item;
  return isJsonObject(item) ? getOwn(item, mergeKey) : undefined;
}

function indexOf(list: readonly JsonValue[], item: JsonValue, mergeKey: string, kind: ValueKind): number {
  const id = identity(item, mergeKey, kind);
  return list.findIndex((v) => scalarEqual(identity(v, mergeKey, kind), id));
}

/** Every item of the lists must be a map carrying the merge key. */
function requireMergeKey(mergeKey: string, ...lists: JsonValue[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isJsonObject(item)) throw badArgType('map', item);
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    }
  }
}

/** Sorts `toSort` by the positions its items have in `order`; `$patch: delete` items go last. */
export function normalizeSliceOrder(toSort: JsonValue[], order: JsonValue[], mergeKey: string, kind: ValueKind): JsonValue[] {
  let items = toSort;
  let deletions: JsonValue[] = [];
  if (kind === 'map') {
    requireMergeKey(mergeKey, toSort, order);
    items = toSort.filter((v) => !isDeleteDirective(v));
    deletions = toSort.filter(isDeleteDirective);
  }
  const sorted = items
    .map((item) => ({ item, at: indexOf(order, item, mergeKey, kind) }))
    // Array.prototype.sort is stable; items missing from `order` stay put relative to each other
    .sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : 0))
    .map((e) => e.item);
  return [...sorted, ...deletions];
}

function isDeleteDirective(v: JsonValue): boolean {
  return isJsonObject(v) && getOwn(v, DIRECTIVE_MARKER) === 'delete';
}

/**
 * Interleaves server-only items (`left`) into the patch items (`right`):
 * a server-only item goes first only when both are on the server and it
 * stood before the patch item there. Both keep their own relative order.
 */
function mergeSortedSlice(left: JsonValue[], right: JsonValue[], serverOrder: JsonValue[], mergeKey: string, kind: ValueKind): JsonValue[] {
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexOf(serverOrder, left[i], mergeKey, kind);
      const ri = indexOf(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Orders `patch` items by `patchOrder` and server-only items by `serverOrder`, then interleaves them. */
export function normalizeElementOrder(
  patch: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  kind: ValueKind,
): JsonValue[] {
  const sortedPatch = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const sortedServer = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(sortedServer, sortedPatch, serverOrder, mergeKey, kind);
}

/** Splits `list` into the items present in `by` (by merge key, or by value without one) and the rest. */
export function partitionByPresence(list: JsonValue[], by: JsonValue[], mergeKey: string): { inPatch: JsonValue[]; serverOnly: JsonValue[] } {
  const inPatch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const item of list) {
    let found: boolean;
    if (mergeKey === '') {
      found = by.some((v) => scalarEqual(v, item));
    } else {
      if (!isJsonObject(item)) throw badArgType('map', item);
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      const id = item[mergeKey];
      found = by.some((v) => {
        if (!isJsonObject(v)) throw badArgType('map', v);
        return Object.hasOwn(v, mergeKey) && scalarEqual(v[mergeKey], id);
      });
    }
    (found ? inPatch : serverOnly).push(item);
  }
  return { inPatch, serverOnly };
}
