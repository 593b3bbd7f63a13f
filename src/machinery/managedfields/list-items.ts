/**
 * How items of a list are identified in field paths: by their key fields
 * (map lists), by their value (set lists), or not at all (atomic lists, which
 * are owned whole). A list whose items cannot be identified (a key missing,
 * a duplicate, a non-scalar set member) is treated as atomic, so one bad
 * item never makes ownership ambiguous.
 */
import type { JsonObject, JsonValue } from '../patch/json-value.js';
import { getOwn, isJsonObject } from '../patch/json-value.js';
import { isAtomicMap, type ListSchema } from './list-schema.js';
import { elementToFieldsV1Key, keyElement, valueElement, type PathElement } from './path-element.js';

/** The element of each item, or undefined when the list is (or must be treated as) atomic. */
export function listItemElements(schema: ListSchema, names: readonly string[], items: readonly JsonValue[]): PathElement[] | undefined {
  return listItems(schema, names, items)?.elements;
}

/** The items' elements and their FieldsV1 keys (`k:{...}`, `v:...`), computed once for walks that need both. */
export interface ListItems {
  elements: PathElement[];
  keys: string[];
}

export function listItems(schema: ListSchema, names: readonly string[], items: readonly JsonValue[]): ListItems | undefined {
  const lt = schema.listTypeAt(names);
  if (lt.type === 'atomic') return undefined;
  const elements: PathElement[] = [];
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    let pe: PathElement;
    if (lt.type === 'set') {
      if (isJsonObject(item) || Array.isArray(item)) return undefined;
      pe = valueElement(item);
    } else {
      if (!isJsonObject(item)) return undefined;
      const fields: JsonObject = {};
      for (const k of lt.keys ?? []) {
        const v = getOwn(item, k) ?? lt.keyDefaults?.[k];
        if (v === undefined || v === null) return undefined;
        fields[k] = v;
      }
      pe = keyElement(fields);
    }
    const id = elementToFieldsV1Key(pe);
    if (seen.has(id)) return undefined;
    seen.add(id);
    elements.push(pe);
    keys.push(id);
  }
  return { elements, keys };
}

/** Both sides of a comparison must agree on identities, or both are treated as atomic. */
export function pairedListElements(
  schema: ListSchema,
  names: readonly string[],
  a: readonly JsonValue[] | undefined,
  b: readonly JsonValue[] | undefined,
): [PathElement[], PathElement[]] | undefined {
  const ea = listItemElements(schema, names, a ?? []);
  const eb = listItemElements(schema, names, b ?? []);
  return ea && eb ? [ea, eb] : undefined;
}

/** Whether a map at this path is owned whole. */
export function atomicMapAt(schema: ListSchema, names: readonly string[]): boolean {
  return names.length > 0 && isAtomicMap(schema, names);
}
