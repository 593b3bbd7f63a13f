/**
 * The set of fields an object sets (upstream ToFieldSet): every scalar,
 * every atomic list or map, every identified list item, and every empty or
 * null value. A non-empty granular map is not itself a member, only its
 * contents are: applying `spec: {replicas: 1}` owns `.spec.replicas`, not
 * `.spec`.
 */
import type { JsonObject, JsonValue } from '../patch/json-value.js';
import { isJsonObject } from '../patch/json-value.js';
import { FieldSet } from './field-set.js';
import { atomicMapAt, listItemElements } from './list-items.js';
import type { ListSchema } from './list-schema.js';
import { fieldElement, type PathElement } from './path-element.js';

export function objectToFieldSet(obj: JsonObject, schema: ListSchema): FieldSet {
  const set = new FieldSet();
  walkMembers(obj, [], [], schema, set);
  return set;
}

function walkMembers(obj: JsonObject, path: PathElement[], names: string[], schema: ListSchema, set: FieldSet): void {
  for (const key of Object.keys(obj)) walk(obj[key], [...path, fieldElement(key)], [...names, key], schema, set);
}

function walk(v: JsonValue, path: PathElement[], names: string[], schema: ListSchema, set: FieldSet): void {
  if (isJsonObject(v)) {
    if (Object.keys(v).length === 0 || atomicMapAt(schema, names)) set.insert(path);
    else walkMembers(v, path, names, schema, set);
    return;
  }
  if (Array.isArray(v)) {
    const elements = listItemElements(schema, names, v);
    if (!elements) {
      set.insert(path);
      return;
    }
    v.forEach((item, i) => {
      const itemPath = [...path, elements[i]];
      set.insert(itemPath);
      // Items of an atomic struct type (e.g. ownerReferences) are owned whole.
      if (isJsonObject(item) && !atomicMapAt(schema, names)) walkMembers(item, itemPath, names, schema, set);
    });
    return;
  }
  set.insert(path);
}
