import { additionalSchema, isObject, itemsSchema, type Schema } from './json-schema.js';

/**
 * Applies schema defaults in place, as upstream's structural defaulting: a
 * missing field with a `default` gets a copy of it (and so does a null one
 * that may not be null), then defaulting continues inside every value,
 * including list items and map values.
 */
export function applySchemaDefaults(value: unknown, s: Schema): void {
  if (Array.isArray(value)) {
    const items = itemsSchema(s);
    if (items) for (const item of value) applySchemaDefaults(item, items);
    return;
  }
  if (!isObject(value)) return;
  for (const [k, ps] of Object.entries(s.properties ?? {})) {
    if (ps.default !== undefined && (!(k in value) || (value[k] === null && !ps.nullable))) value[k] = structuredClone(ps.default);
  }
  const extra = additionalSchema(s);
  for (const [k, v] of Object.entries(value)) {
    const ps = s.properties?.[k] ?? extra;
    if (ps) applySchemaDefaults(v, ps);
  }
  for (const n of s.allOf ?? []) applySchemaDefaults(value, n);
}
