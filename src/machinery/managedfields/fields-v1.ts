/**
 * The FieldsV1 wire format of `metadata.managedFields[].fieldsV1`: a JSON
 * trie whose member names are path elements (`f:spec`, `k:{"name":"web"}`,
 * `v:"x"`, `i:0`); `{}` marks a leaf member, and `".": {}` inside a child
 * marks its parent as a member as well.
 */
import type { JsonObject } from '../patch/json-value.js';
import { isJsonObject, setOwn } from '../patch/json-value.js';
import { FieldSet } from './field-set.js';
import { elementFromFieldsV1Key, elementToFieldsV1Key, FieldPathError, type PathElement } from './path-element.js';

export function fieldSetFromFieldsV1(fields: unknown): FieldSet {
  if (!isJsonObject(fields)) throw new FieldPathError('FieldsV1 must be a JSON object');
  const set = new FieldSet();
  read(fields, set, undefined, '', undefined);
  return set;
}

// Builds the trie level by level; a member's key is reused as its canonical
// key when it names a field (`f:` keys have one spelling), parsed otherwise.
function read(obj: JsonObject, node: FieldSet, parent: FieldSet | undefined, selfKey: string, self: PathElement | undefined): void {
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (key === '.') {
      // `.` says the element holding this object is itself owned.
      if (parent && self) parent.addMemberByKey(selfKey, self);
      continue;
    }
    const pe = elementFromFieldsV1Key(key);
    if (!isJsonObject(value)) throw new FieldPathError(`FieldsV1 member ${JSON.stringify(key)} must be an object`);
    const canonical = pe.kind === 'field' ? key : elementToFieldsV1Key(pe);
    if (isEmptyObject(value)) node.addMemberByKey(canonical, pe);
    else {
      read(value, node.childByKey(canonical, pe), node, canonical, pe);
      node.dropEmptyChild(canonical);
    }
  }
}

function isEmptyObject(o: JsonObject): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return false;
  return true;
}

export function fieldSetToFieldsV1(set: FieldSet): JsonObject {
  return write(set, false);
}

function write(set: FieldSet, includeSelf: boolean): JsonObject {
  const out: JsonObject = {};
  const rows = set.entries();
  if (includeSelf && rows.length > 0) out['.'] = {};
  for (const { key, member, child } of rows) {
    setOwn(out, key, child ? write(child, member) : {});
  }
  return out;
}
