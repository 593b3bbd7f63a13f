import { getOwn, isJsonObject, type JsonValue } from '../json-value.js';
import { DIRECTIVE_MARKER, scalarEqual } from './patch-values.js';
import { goFormat } from './go-format.js';
import { badArgType, noMergeKey, patchFailed } from './strategic-errors.js';

/**
 * Checks that the items of a patch list appear in its `$setElementOrder`
 * list, in the same relative order (`$patch` items excepted).
 */
export function validateSetElementOrder(patchList: JsonValue[], order: JsonValue[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey === '' ? patchList : patchList.filter((v) => !(isJsonObject(v) && getOwn(v, DIRECTIVE_MARKER) === 'delete'));
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p];
    if (isJsonObject(item) && Object.hasOwn(item, DIRECTIVE_MARKER)) {
      p++;
      continue;
    }
    if (sameMergeKey(item, order[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length) {
    throw patchFailed(`the order in patch list:\n${goFormat(patchList)}\n doesn't match $setElementOrder list:\n${goFormat(order)}`);
  }
}

function sameMergeKey(left: JsonValue, right: JsonValue, mergeKey: string): boolean {
  if (mergeKey === '') return scalarEqual(left, right);
  if (!isJsonObject(left)) throw badArgType('map', left);
  if (!isJsonObject(right)) throw badArgType('map', right);
  if (!Object.hasOwn(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!Object.hasOwn(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return scalarEqual(left[mergeKey], right[mergeKey]);
}
