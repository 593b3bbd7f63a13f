/**
 * What changed between two versions of an object, as field sets (upstream
 * typed Compare): leaves that appeared, changed value or disappeared, plus
 * every map, list or list item that appeared or disappeared as a whole.
 */
import type { JsonObject, JsonValue } from '../patch/json-value.js';
import { isJsonObject, jsonEqual } from '../patch/json-value.js';
import { FieldSet } from './field-set.js';
import { atomicMapAt, pairedListElements } from './list-items.js';
import type { ListSchema } from './list-schema.js';
import { elementToFieldsV1Key, fieldElement, type PathElement } from './path-element.js';

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function compareObjects(before: JsonObject, after: JsonObject, schema: ListSchema): Comparison {
  const out: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareValue(before, after, [], [], schema, out);
  return out;
}

/** Fields that were added or changed value: what a writer takes ownership of. */
export function changedFields(c: Comparison): FieldSet {
  return c.modified.union(c.added);
}

function compareLeaf(a: JsonValue | undefined, b: JsonValue | undefined, path: PathElement[], out: Comparison): void {
  if (a === undefined && b === undefined) return;
  if (a === undefined) out.added.insert(path);
  else if (b === undefined) out.removed.insert(path);
  else if (!jsonEqual(a, b)) out.modified.insert(path);
}

function isEmptyContainer(v: JsonValue | undefined): boolean {
  if (v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isJsonObject(v) && Object.keys(v).length === 0;
}

function compareValue(
  a: JsonValue | undefined,
  b: JsonValue | undefined,
  path: PathElement[],
  names: string[],
  schema: ListSchema,
  out: Comparison,
): void {
  const mapLike = (v: JsonValue | undefined) => v === undefined || isJsonObject(v);
  const listLike = (v: JsonValue | undefined) => v === undefined || Array.isArray(v);
  // Both sides empty (or absent) compare as leaves, which keeps `{}` vs absent visible.
  const promoteToLeaf = isEmptyContainer(a) && isEmptyContainer(b);

  if (!promoteToLeaf && mapLike(a) && mapLike(b) && !atomicMapAt(schema, names)) {
    const ma = (a ?? {}) as JsonObject;
    const mb = (b ?? {}) as JsonObject;
    for (const key of new Set([...Object.keys(ma), ...Object.keys(mb)])) {
      const va = Object.hasOwn(ma, key) ? ma[key] : undefined;
      const vb = Object.hasOwn(mb, key) ? mb[key] : undefined;
      compareValue(va, vb, [...path, fieldElement(key)], [...names, key], schema, out);
    }
    markWhole(a, b, path, out);
    return;
  }
  if (!promoteToLeaf && listLike(a) && listLike(b)) {
    const la = a as JsonValue[] | undefined;
    const lb = b as JsonValue[] | undefined;
    const paired = pairedListElements(schema, names, la, lb);
    if (paired) {
      compareItems(la ?? [], lb ?? [], paired, path, names, schema, out);
      markWhole(a, b, path, out);
      return;
    }
  }
  compareLeaf(a, b, path, out);
}

function compareItems(
  la: JsonValue[],
  lb: JsonValue[],
  [ea, eb]: [PathElement[], PathElement[]],
  path: PathElement[],
  names: string[],
  schema: ListSchema,
  out: Comparison,
): void {
  const byId = new Map<string, { pe: PathElement; a?: JsonValue; b?: JsonValue }>();
  ea.forEach((pe, i) => byId.set(elementToFieldsV1Key(pe), { pe, a: la[i] }));
  eb.forEach((pe, i) => {
    const id = elementToFieldsV1Key(pe);
    const prev = byId.get(id);
    byId.set(id, { pe, a: prev?.a, b: lb[i] });
  });
  for (const { pe, a, b } of byId.values()) {
    const itemPath = [...path, pe];
    // Set members and atomic items are leaves: they appear or disappear.
    if (!isJsonObject(a ?? b ?? null) || atomicMapAt(schema, names)) compareLeaf(a, b, itemPath, out);
    else compareValue(a, b, itemPath, names, schema, out);
  }
}

// A container that appears or disappears is itself added or removed.
function markWhole(a: JsonValue | undefined, b: JsonValue | undefined, path: PathElement[], out: Comparison): void {
  if (a === undefined) out.added.insert(path);
  else if (b === undefined) out.removed.insert(path);
}

/**
 * What `compareObjects({}, after)` reports as added, computed in one walk
 * without comparing: every field of a new object (the create fast path).
 */
export function addedFields(after: JsonObject, schema: ListSchema): FieldSet {
  const out = new FieldSet();
  for (const key of Object.keys(after)) addValue(after[key], [fieldElement(key)], [key], schema, out);
  return out;
}

function addValue(b: JsonValue | undefined, path: PathElement[], names: string[], schema: ListSchema, out: FieldSet): void {
  if (b === undefined) return;
  if (isEmptyContainer(b)) {
    out.insert(path);
    return;
  }
  if (isJsonObject(b) && !atomicMapAt(schema, names)) {
    for (const key of Object.keys(b)) addValue(b[key], [...path, fieldElement(key)], [...names, key], schema, out);
    out.insert(path);
    return;
  }
  if (Array.isArray(b)) {
    const paired = pairedListElements(schema, names, undefined, b);
    if (paired) {
      const elements = paired[1];
      b.forEach((item, i) => {
        const itemPath = [...path, elements[i]];
        if (!isJsonObject(item) || atomicMapAt(schema, names)) out.insert(itemPath);
        else addValue(item, itemPath, names, schema, out);
      });
      out.insert(path);
      return;
    }
  }
  out.insert(path);
}
