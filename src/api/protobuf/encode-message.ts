import { isScalarType, type MessageSchema, type MessageTable, type ScalarType } from './message-schema.js';
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

const enum Shape {
  Inline,
  Map,
  Repeated,
  Scalar,
  Message,
}

interface CompiledField {
  n: number;
  json: string;
  type: string;
  shape: Shape;
  /** Written only when set: a pointer, or a nil-able byte string. */
  optional: boolean;
}

/** Each schema's fields in ascending number order (as gogo writes them), with what to do for each decided once. */
const compiled = new WeakMap<MessageSchema, CompiledField[]>();

function fieldsOf(schema: MessageSchema): CompiledField[] {
  let fields = compiled.get(schema);
  if (!fields) {
    fields = [...schema]
      .sort((a, b) => a[0] - b[0])
      .map(([n, f]) => {
        const scalar = isScalarType(f.type);
        const shape = f.inline ? Shape.Inline : f.map ? Shape.Map : f.repeated ? Shape.Repeated : scalar ? Shape.Scalar : Shape.Message;
        return { n, json: f.json, type: f.type, shape, optional: f.pointer || (scalar && f.type === 'y') };
      });
    compiled.set(schema, fields);
  }
  return fields;
}

function writeFields(w: WireWriter, obj: JsonObject, schema: MessageSchema, table: MessageTable): void {
  for (const f of fieldsOf(schema)) {
    if (f.shape === Shape.Inline) {
      // an embedded struct: its fields sit in the parent's JSON object
      const mark = w.fork(f.n);
      encodeMessageInto(w, obj, f.type, table);
      w.join(mark);
      continue;
    }
    const v = obj[f.json];
    switch (f.shape) {
      case Shape.Map:
        if (isObject(v)) writeMap(w, f.n, v, f.type, table);
        break;
      case Shape.Repeated:
        if (Array.isArray(v)) for (const item of v) writeValue(w, f.n, item, f.type, table);
        break;
      case Shape.Scalar:
        // pointers and byte strings are nil when absent; plain scalars are always written
        if (!f.optional || !absent(v)) writeScalar(w, f.n, v, f.type as ScalarType);
        break;
      default:
        if (!f.optional || !absent(v)) writeValue(w, f.n, v, f.type, table);
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
