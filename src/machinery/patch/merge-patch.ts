import { cloneJson, getOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from './json-value.js';

/**
 * Applies an RFC 7386 JSON Merge Patch and returns the result; neither input
 * is modified. `null` deletes a member, objects merge recursively, anything
 * else (arrays included) replaces the target whole.
 */
export function applyMergePatch(target: unknown, patch: unknown): JsonValue {
  if (!isJsonObject(patch)) return pruneNulls(patch);
  const out: JsonObject = isJsonObject(target) ? (cloneJson(target) as JsonObject) : {};
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      delete out[key];
    } else {
      setOwn(out, key, applyMergePatch(getOwn(out, key), value));
    }
  }
  return out;
}

/**
 * Copies a value from a patch, dropping null members of objects at any depth
 * (a null there can only mean "absent"). As upstream, nulls that are array
 * elements stay.
 */
function pruneNulls(v: unknown): JsonValue {
  if (Array.isArray(v)) return v.map(pruneNulls);
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const key of Object.keys(v)) if (v[key] !== null) setOwn(out, key, pruneNulls(v[key]));
    return out;
  }
  return cloneJson(v);
}
