import { isScalarType, type FieldSpec, type MessageSchema, type MessageTable, type ScalarType } from './message-schema.js';
import { ALL_MESSAGES } from './schemas/all-messages.js';
import { SPECIAL_ENCODERS } from './special-encoders.js';
import { WireWriter } from './wire-writer.js';

type Json = unknown;
type JsonObject = Record<string, Json>;

/** Thrown for a message name no table describes (a programming error, not bad input). */
export class ProtobufEncodeError extends Error {
  override readonly name = 'ProtobufEncodeError';
}

function isObject(v: Json): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const absent = (v: Json): boolean => v === undefined || v === null;

/**
 * Writes the JSON form of a message of `type` as the Go (gogo, proto2)
 * marshaller writes the same object: fields in number order, every
 * non-pointer scalar and struct written even when zero, pointers, byte
 * strings and collections only when set, map entries sorted by key. Fields
 * the table does not know are not written (Go's types would have dropped
 * them too). Values of the wrong JSON type are written as their zero value.
 */
export function encodeMessageInto(w: WireWriter, value: Json, type: string, table: MessageTable = ALL_MESSAGES): void {
  const special = SPECIAL_ENCODERS[type];
  if (special) {
    special(w, value);
    return;
  }
  const schema = table[type];
  if (!schema) throw new ProtobufEncodeError(`no schema for message ${type}`);
  writeFields(w, isObject(value) ? value : {}, schema, table);
}

export function encodeMessage(value: Json, type: string, table: MessageTable = ALL_MESSAGES): Buffer {
  const w = new WireWriter();
  encodeMessageInto(w, value, type, table);
  return w.finish();
}

/** Field numbers in ascending order, as gogo writes them (the tables are not always listed that way). */
const ordered = new WeakMap<MessageSchema, [number, FieldSpec][]>();

function fieldsOf(schema: MessageSchema): [number, FieldSpec][] {
  let fields = ordered.get(schema);
  if (!fields) ordered.set(schema, (fields = [...schema].sort((a, b) => a[0] - b[0])));
  return fields;
}

function writeFields(w: WireWriter, obj: JsonObject, schema: MessageSchema, table: MessageTable): void {
  for (const [n, f] of fieldsOf(schema)) {
    if (f.inline) {
      // an embedded struct: its fields sit in the parent's JSON object
      const mark = w.fork(n);
      encodeMessageInto(w, obj, f.type, table);
      w.join(mark);
      continue;
    }
    const v = obj[f.json];
    if (f.map) {
      if (isObject(v)) writeMap(w, n, v, f.type, table);
    } else if (f.repeated) {
      if (Array.isArray(v)) for (const item of v) writeValue(w, n, item, f.type, table);
    } else if (isScalarType(f.type)) {
      // pointers and byte strings are nil when absent; plain scalars are always written
      if (f.pointer || f.type === 'y' ? !absent(v) : true) writeScalar(w, n, v, f.type);
    } else if (!f.pointer || !absent(v)) {
      writeValue(w, n, v, f.type, table);
    }
  }
}

function writeValue(w: WireWriter, n: number, v: Json, type: string, table: MessageTable): void {
  if (isScalarType(type)) {
    writeScalar(w, n, v, type);
    return;
  }
  const mark = w.fork(n);
  encodeMessageInto(w, v, type, table);
  w.join(mark);
}

function writeScalar(w: WireWriter, n: number, v: Json, type: ScalarType): void {
  switch (type) {
    case 's':
      w.string(n, typeof v === 'string' ? v : '');
      return;
    case 'b':
      w.bool(n, v === true);
      return;
    case 'y':
      w.bytes(n, typeof v === 'string' ? Buffer.from(v, 'base64') : new Uint8Array(0));
      return;
    default:
      w.int64(n, typeof v === 'number' && Number.isFinite(v) ? v : 0);
  }
}

function writeMap(w: WireWriter, n: number, m: JsonObject, type: string, table: MessageTable): void {
  const keys = Object.keys(m).sort();
  for (const key of keys) {
    const v = m[key];
    const mark = w.fork(n);
    w.string(1, key);
    // gogo leaves out a nil []byte value; every other value is written
    if (type !== 'y' || !absent(v)) writeValue(w, 2, v, type, table);
    w.join(mark);
  }
}
