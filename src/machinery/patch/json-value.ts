/** Plain JSON values, and the few operations patches need on them. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads an own property only, so `__proto__` or `constructor` never reach the prototype. */
export function getOwn(obj: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * Sets a data property. Plain assignment of `__proto__` would replace the
 * object's prototype (prototype pollution); defineProperty never does.
 */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  // only `__proto__` is an accessor on Object.prototype: any other key assigns an own data property (and far faster)
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** Deep copy of a JSON value; `undefined` members are dropped as JSON would. */
export function cloneJson(v: unknown): JsonValue {
  if (Array.isArray(v)) return v.map((item) => (item === undefined ? null : cloneJson(item)));
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const key of Object.keys(v)) {
      const member = (v as Record<string, unknown>)[key];
      if (member !== undefined) setOwn(out, key, cloneJson(member));
    }
    return out;
  }
  if (v === undefined) return null;
  return v as JsonValue;
}

/** Structural equality; object member order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}
