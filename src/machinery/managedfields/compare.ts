/**
 * What changed between two versions of an object, as field sets (upstream
 * typed Compare): leaves that appeared, changed value or disappeared, plus
 * every map, list or list item that appeared or disappeared as a whole.
 *
 * This runs on every write, so the walks keep their path on stacks (pushed
 * and popped, no copies per field) and build path elements only for the
 * paths they record.
 */
import type { JsonObject, JsonValue } from '../patch/json-value.js';
import { isJsonObject, jsonEqual } from '../patch/json-value.js';
import { FieldSet } from './field-set.js';
import { atomicMapAt, listItems, type ListItems } from './list-items.js';
import type { ListSchema } from './list-schema.js';
import type { PathElement } from './path-element.js';

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** A walk's position: path elements (a string is a field name), their FieldsV1 keys once known, and the field names the schema is asked about (list items add none). */
interface Walk {
  readonly schema: ListSchema;
  readonly segs: (PathElement | string)[];
  readonly keys: (string | undefined)[];
  readonly names: string[];
}

interface CompareWalk extends Walk {
  readonly out: Comparison;
}

export function compareObjects(before: JsonObject, after: JsonObject, schema: ListSchema): Comparison {
  const w: CompareWalk = { schema, segs: [], keys: [], names: [], out: { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() } };
  compareValue(before, after, w);
  return w.out;
}

/** Fields that were added or changed value: what a writer takes ownership of. */
export function changedFields(c: Comparison): FieldSet {
  // a create modifies nothing: its added set is the answer (callers only read it)
  if (c.modified.isEmpty()) return c.added;
  if (c.added.isEmpty()) return c.modified;
  return c.modified.union(c.added);
}

function compareLeaf(a: JsonValue | undefined, b: JsonValue | undefined, w: CompareWalk): void {
  if (a === undefined && b === undefined) return;
  if (a === undefined) w.out.added.insertStacked(w.segs, w.keys);
  else if (b === undefined) w.out.removed.insertStacked(w.segs, w.keys);
  else if (!jsonEqual(a, b)) w.out.modified.insertStacked(w.segs, w.keys);
}

function isEmptyContainer(v: JsonValue | undefined): boolean {
  if (v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (!isJsonObject(v)) return false;
  for (const _ in v) if (Object.hasOwn(v, _)) return false;
  return true;
}

const isMapLike = (v: JsonValue | undefined): boolean => v === undefined || isJsonObject(v);
const isListLike = (v: JsonValue | undefined): boolean => v === undefined || Array.isArray(v);
const EMPTY: JsonObject = Object.freeze({}) as JsonObject;

function pushField(w: Walk, key: string): void {
  w.segs.push(key);
  w.keys.push(undefined);
  w.names.push(key);
}

function popField(w: Walk): void {
  w.segs.pop();
  w.keys.pop();
  w.names.pop();
}

function compareValue(a: JsonValue | undefined, b: JsonValue | undefined, w: CompareWalk): void {
  // Both sides empty (or absent) compare as leaves, which keeps `{}` vs absent visible.
  const promoteToLeaf = isEmptyContainer(a) && isEmptyContainer(b);

  if (!promoteToLeaf && isMapLike(a) && isMapLike(b) && !atomicMapAt(w.schema, w.names)) {
    const ma = (a ?? EMPTY) as JsonObject;
    const mb = (b ?? EMPTY) as JsonObject;
    for (const key of Object.keys(ma)) {
      pushField(w, key);
      compareValue(ma[key], Object.hasOwn(mb, key) ? mb[key] : undefined, w);
      popField(w);
    }
    for (const key of Object.keys(mb)) {
      if (Object.hasOwn(ma, key)) continue;
      pushField(w, key);
      compareValue(undefined, mb[key], w);
      popField(w);
    }
    markWhole(a, b, w);
    return;
  }
  if (!promoteToLeaf && isListLike(a) && isListLike(b)) {
    const la = (a ?? []) as JsonValue[];
    const lb = (b ?? []) as JsonValue[];
    const ia = listItems(w.schema, w.names, la);
    const ib = ia && listItems(w.schema, w.names, lb);
    if (ia && ib) {
      compareItems(la, lb, ia, ib, w);
      markWhole(a, b, w);
      return;
    }
  }
  compareLeaf(a, b, w);
}

interface PairedItem {
  pe: PathElement;
  a?: JsonValue;
  b?: JsonValue;
}

function compareItems(la: JsonValue[], lb: JsonValue[], ia: ListItems, ib: ListItems, w: CompareWalk): void {
  const byId = new Map<string, PairedItem>();
  for (let i = 0; i < la.length; i++) byId.set(ia.keys[i], { pe: ia.elements[i], a: la[i] });
  for (let i = 0; i < lb.length; i++) {
    const id = ib.keys[i];
    const prev = byId.get(id);
    if (prev) {
      prev.pe = ib.elements[i];
      prev.b = lb[i];
    } else byId.set(id, { pe: ib.elements[i], b: lb[i] });
  }
  const atomicItems = atomicMapAt(w.schema, w.names);
  for (const [id, { pe, a, b }] of byId) {
    w.segs.push(pe);
    w.keys.push(id);
    // Set members and atomic items are leaves: they appear or disappear.
    if (atomicItems || !isJsonObject(a ?? b ?? null)) compareLeaf(a, b, w);
    else compareValue(a, b, w);
    w.segs.pop();
    w.keys.pop();
  }
}

// A container that appears or disappears is itself added or removed.
function markWhole(a: JsonValue | undefined, b: JsonValue | undefined, w: CompareWalk): void {
  if (a === undefined) w.out.added.insertStacked(w.segs, w.keys);
  else if (b === undefined) w.out.removed.insertStacked(w.segs, w.keys);
}

/**
 * What `compareObjects({}, after)` reports as added, computed in one walk
 * without comparing: every field of a new object (the create fast path).
 */
export function addedFields(after: JsonObject, schema: ListSchema): FieldSet {
  const out = new FieldSet();
  const w: Walk = { schema, segs: [], keys: [], names: [] };
  for (const key of Object.keys(after)) {
    pushField(w, key);
    addValue(after[key], w, out);
    popField(w);
  }
  return out;
}

function addValue(b: JsonValue | undefined, w: Walk, out: FieldSet): void {
  if (b === undefined) return;
  if (isEmptyContainer(b)) {
    out.insertStacked(w.segs, w.keys);
    return;
  }
  if (isJsonObject(b) && !atomicMapAt(w.schema, w.names)) {
    for (const key of Object.keys(b)) {
      pushField(w, key);
      addValue(b[key], w, out);
      popField(w);
    }
    out.insertStacked(w.segs, w.keys);
    return;
  }
  if (Array.isArray(b)) {
    const items = listItems(w.schema, w.names, []) && listItems(w.schema, w.names, b);
    if (items) {
      const atomicItems = atomicMapAt(w.schema, w.names);
      for (let i = 0; i < b.length; i++) {
        const item = b[i];
        w.segs.push(items.elements[i]);
        w.keys.push(items.keys[i]);
        if (!isJsonObject(item) || atomicItems) out.insertStacked(w.segs, w.keys);
        else addValue(item, w, out);
        w.segs.pop();
        w.keys.pop();
      }
      out.insertStacked(w.segs, w.keys);
      return;
    }
  }
  out.insertStacked(w.segs, w.keys);
}
