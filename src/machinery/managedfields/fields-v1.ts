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
  read(fields, [], set);
  return set;
}

function read(obj: JsonObject, prefix: PathElement[], set: FieldSet): void {
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (key === '.') {
      // `.` says the element holding this object is itself owned.
      if (prefix.length > 0) set.insert(prefix);
      continue;
    }
    const pe = elementFromFieldsV1Key(key);
    if (!isJsonObject(value)) throw new FieldPathError(`FieldsV1 member ${JSON.stringify(key)} must be an object`);
    const path = [...prefix, pe];
    if (Object.keys(value).length === 0) set.insert(path);
    else read(value, path, set);
  }
}

export function fieldSetToFieldsV1(set: FieldSet): JsonObject {
  return write(set, false);
}

function write(set: FieldSet, includeSelf: boolean): JsonObject {
  const out: JsonObject = {};
  const rows = set.entries();
  if (includeSelf && rows.length > 0) out['.'] = {};
  for (const { pe, member, child } of rows) {
    setOwn(out, elementToFieldsV1Key(pe), child ? write(child, member) : {});
  }
  return out;
}
