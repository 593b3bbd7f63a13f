import { cloneJson, getOwn, isJsonObject, jsonEqual, setOwn, type JsonObject, type JsonValue } from './json-value.js';

/**
 * The RFC 7386 merge patch that turns `original` into `modified`: removed
 * members become null, changed objects are diffed recursively, anything else
 * that differs is sent whole. applyMergePatch(original, result) equals
 * `modified` (except for members whose value is literally null, which a merge
 * patch cannot express).
 */
export function createMergePatch(original: unknown, modified: unknown): JsonValue {
  if (!isJsonObject(original) || !isJsonObject(modified)) return cloneJson(modified);
  const patch: JsonObject = {};
  for (const key of Object.keys(original)) {
    if (!Object.hasOwn(modified, key)) setOwn(patch, key, null);
  }
  for (const key of Object.keys(modified)) {
    const before = getOwn(original, key);
    const after = modified[key];
    if (before === undefined) {
      setOwn(patch, key, cloneJson(after));
    } else if (isJsonObject(before) && isJsonObject(after)) {
      const nested = createMergePatch(before, after) as JsonObject;
      if (Object.keys(nested).length > 0) setOwn(patch, key, nested);
    } else if (!jsonEqual(before, after)) {
      setOwn(patch, key, cloneJson(after));
    }
  }
  return patch;
}
