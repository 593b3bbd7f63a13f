/**
 * FieldsV1 decoded and encoded once, shared between writes. A write's
 * managers' records are mostly the ones the object already had (a client
 * sends back what it read; a status write starts from the stored record),
 * and most managers keep their fields, so the same records are decoded and
 * encoded again and again. Decoded sets are cached by their JSON text and
 * frozen; a frozen set remembers its encoding, which is frozen too, so
 * sharing it between objects is safe. Results are exactly those of
 * fieldSetFromFieldsV1 and fieldSetToFieldsV1.
 */
import type { JsonObject } from '../patch/json-value.js';
import { isJsonObject } from '../patch/json-value.js';
import type { FieldSet } from './field-set.js';
import { fieldSetFromFieldsV1, fieldSetToFieldsV1 } from './fields-v1.js';

/** Records kept (least recently used go first): enough for the objects written in the last few seconds of a busy server. */
const MAX_DECODED = 2048;

const decoded = new Map<string, FieldSet>();
const encoded = new WeakMap<FieldSet, JsonObject>();

/** fieldSetFromFieldsV1, frozen and shared with earlier decodes of the same text. */
export function decodeFieldsV1Shared(fields: unknown): FieldSet {
  if (!isJsonObject(fields)) return fieldSetFromFieldsV1(fields);
  const text = JSON.stringify(fields);
  const hit = decoded.get(text);
  if (hit) {
    decoded.delete(text);
    decoded.set(text, hit);
    return hit;
  }
  const set = fieldSetFromFieldsV1(fields).freeze();
  decoded.set(text, set);
  if (decoded.size > MAX_DECODED) decoded.delete(decoded.keys().next().value as string);
  return set;
}

/** fieldSetToFieldsV1; for a frozen set, computed once and returned frozen. */
export function encodeFieldsV1Shared(set: FieldSet): JsonObject {
  if (!set.isFrozen()) return fieldSetToFieldsV1(set);
  let json = encoded.get(set);
  if (!json) {
    json = deepFreeze(fieldSetToFieldsV1(set));
    encoded.set(set, json);
  }
  return json;
}

function deepFreeze(o: JsonObject): JsonObject {
  for (const k of Object.keys(o)) deepFreeze(o[k] as JsonObject);
  return Object.freeze(o);
}
