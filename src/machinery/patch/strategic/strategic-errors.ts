import { PatchError } from '../patch-error.js';
import { goFormat, goTypeName } from './go-format.js';

// Upstream's messages (k8s.io/apimachinery/pkg/util/mergepatch and
// strategicpatch). The API server answers the patch-format ones with 400
// BadRequest; anything else means the patch does not fit the object.

export function badPatchFormatForPrimitiveList(): PatchError {
  return new PatchError('InvalidPatch', 'invalid patch format of primitive list');
}

export function badPatchFormatForRetainKeys(): PatchError {
  return new PatchError('InvalidPatch', 'invalid patch format of retainKeys');
}

export function badPatchFormatForSetElementOrderList(): PatchError {
  return new PatchError('InvalidPatch', 'invalid patch format of setElementOrder list');
}

export function noListOfLists(): PatchError {
  return new PatchError('PatchFailed', 'lists of lists are not supported');
}

export function noMergeKey(m: unknown, mergeKey: string): PatchError {
  return new PatchError('PatchFailed', `map: ${goFormat(m)} does not contain declared merge key: ${mergeKey}`);
}

/** `expected` is the Go type name wanted: a list or a map. */
export function badArgType(expected: 'list' | 'map', actual: unknown): PatchError {
  const want = expected === 'list' ? '[]interface {}' : 'map[string]interface {}';
  return new PatchError('PatchFailed', `expected a ${want}, but received a ${goTypeName(actual)}`);
}

export function badPatchType(directive: unknown, m: unknown): PatchError {
  return new PatchError('PatchFailed', `unknown patch type: ${goFormat(directive)} in map: ${goFormat(m)}`);
}

export function patchFailed(message: string): PatchError {
  return new PatchError('PatchFailed', message);
}
