/**
 * Removes fields from an object by field set (upstream RemoveItems, used to
 * prune what an applier stopped applying). A member removes the whole value
 * at its path, unless `keep` owns something below it: then only the parts
 * below that are themselves members go.
 */
import type { JsonObject, JsonValue } from '../patch/json-value.js';
import { cloneJson, isJsonObject } from '../patch/json-value.js';
import type { FieldSet } from './field-set.js';
import { listItemElements } from './list-items.js';
import type { ListSchema } from './list-schema.js';
import { elementToFieldsV1Key, type PathElement } from './path-element.js';

export function removeFields(obj: JsonObject, remove: FieldSet, keep: FieldSet, schema: ListSchema): JsonObject {
  const out = cloneJson(obj) as JsonObject;
  removeFromMap(out, remove, keep, [], schema);
  return out;
}

function removeFromMap(obj: JsonObject, remove: FieldSet, keep: FieldSet, names: string[], schema: ListSchema): void {
  for (const { pe, member, child } of remove.entries()) {
    if (pe.kind !== 'field' || !Object.hasOwn(obj, pe.name)) continue;
    const here: PathElement[] = [pe];
    if (member && keep.child(here).isEmpty()) {
      delete obj[pe.name];
    } else if (child) {
      removeBelow(obj[pe.name], child, keep.child(here), [...names, pe.name], schema);
    }
  }
}

function removeBelow(v: JsonValue, remove: FieldSet, keep: FieldSet, names: string[], schema: ListSchema): void {
  if (isJsonObject(v)) {
    removeFromMap(v, remove, keep, names, schema);
    return;
  }
  if (!Array.isArray(v)) return;
  const elements = listItemElements(schema, names, v);
  if (!elements) return;
  const rows = new Map(remove.entries().map((r) => [elementToFieldsV1Key(r.pe), r]));
  // Walk backwards so splicing keeps the remaining indexes valid.
  for (let i = v.length - 1; i >= 0; i--) {
    const row = rows.get(elementToFieldsV1Key(elements[i]));
    if (!row) continue;
    const here = [elements[i]];
    if (row.member && keep.child(here).isEmpty()) v.splice(i, 1);
    else if (row.child) removeBelow(v[i], row.child, keep.child(here), names, schema);
  }
}
