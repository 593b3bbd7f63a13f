import { isScalarType, type FieldSpec, type MessageTable, type ScalarType } from './message-schema.js';
import { ProtobufDecodeError } from './protobuf-decode-error.js';
import { ALL_MESSAGES } from './schemas/all-messages.js';
import { SPECIAL_TYPES } from './special-types.js';
import { WireReader, WireType, type Tag } from './wire-reader.js';

/** Kubernetes objects nest about 15 deep; far deeper means hostile input or a schema loop. */
const MAX_DEPTH = 64;

type Json = unknown;

/** Per-field state while reading a message: the wire may repeat or split any field. */
interface Slot {
  scalar?: Json;
  items?: Json[];
  entries?: Record<string, Json>;
  /** Chunks of a singular message field; concatenating them is protobuf's merge rule. */
  chunks?: Uint8Array[];
}

/**
 * Decodes protobuf wire data of message `type` into the JSON value Go's
 * encoding/json would print for the same object after a protobuf round trip.
 * Unknown fields are skipped; malformed data throws ProtobufDecodeError.
 */
export function decodeMessage(bytes: Uint8Array, type: string, table: MessageTable = ALL_MESSAGES, depth = 0): Json {
  if (depth > MAX_DEPTH) throw new ProtobufDecodeError('message nested too deeply');
  const special = SPECIAL_TYPES[type];
  if (special) return special(bytes);
  const schema = table[type];
  if (!schema) throw new ProtobufDecodeError(`no schema for message ${type}`, 'unsupported');

  const slots = new Map<FieldSpec, Slot>();
  const r = new WireReader(bytes);
  while (!r.done) {
    const tag = r.tag();
    const spec = schema.get(tag.field);
    if (!spec) {
      r.skip(tag);
      continue;
    }
    let slot = slots.get(spec);
    if (!slot) slots.set(spec, (slot = {}));
    readField(r, tag, spec, slot, table, depth);
  }
  return render(schema, slots, table, depth);
}

function readField(r: WireReader, tag: Tag, spec: FieldSpec, slot: Slot, table: MessageTable, depth: number): void {
  const where = `field ${spec.json}`;
  if (spec.map) {
    expectWire(tag, WireType.LengthDelimited, where);
    const [key, value] = readMapEntry(r.bytes(), spec.type, table, depth, where);
    // defineProperty, not assignment: a key like "__proto__" must stay plain data.
    Object.defineProperty((slot.entries ??= {}), key, { value, enumerable: true, writable: true, configurable: true });
    return;
  }
  if (isScalarType(spec.type)) {
    const type: ScalarType = spec.type;
    if (spec.repeated && tag.wireType === WireType.LengthDelimited && type !== 's' && type !== 'y') {
      // Packed repeated numbers: one length-delimited run of varints.
      const packed = new WireReader(r.bytes());
      while (!packed.done) (slot.items ??= []).push(readScalar(packed, WireType.Varint, type, where));
      return;
    }
    const value = readScalar(r, tag.wireType, type, where);
    if (spec.repeated) (slot.items ??= []).push(value);
    else slot.scalar = value;
    return;
  }
  expectWire(tag, WireType.LengthDelimited, where);
  const payload = r.bytes();
  if (spec.repeated) (slot.items ??= []).push(decodeMessage(payload, spec.type, table, depth + 1));
  else (slot.chunks ??= []).push(payload);
}

function readScalar(r: WireReader, wireType: number, type: ScalarType, where: string): Json {
  if (type === 's' || type === 'y') {
    expectWire({ field: 0, wireType }, WireType.LengthDelimited, where);
    return type === 's' ? r.string() : Buffer.from(r.bytes()).toString('base64');
  }
  expectWire({ field: 0, wireType }, WireType.Varint, where);
  if (type === 'b') return r.uint() !== 0;
  return r.int(type === 'i32' ? 32 : 64);
}

function readMapEntry(entry: Uint8Array, type: string, table: MessageTable, depth: number, where: string): [string, Json] {
  const r = new WireReader(entry);
  let key = '';
  let value: Json;
  while (!r.done) {
    const tag = r.tag();
    if (tag.field === 1) {
      key = readScalar(r, tag.wireType, 's', where) as string;
    } else if (tag.field === 2) {
      if (isScalarType(type)) {
        value = readScalar(r, tag.wireType, type, where);
      } else {
        expectWire(tag, WireType.LengthDelimited, where);
        value = decodeMessage(r.bytes(), type, table, depth + 1);
      }
    } else {
      r.skip(tag);
    }
  }
  // A missing value is the zero value of the map's value type.
  return [key, value === undefined ? zeroOf(type, table, depth) : value];
}

function render(
  schema: ReadonlyMap<number, FieldSpec>,
  slots: Map<FieldSpec, Slot>,
  table: MessageTable,
  depth: number,
): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const spec of schema.values()) {
    const slot = slots.get(spec);
    if (spec.map || spec.repeated) {
      const value = spec.map ? slot?.entries : slot?.items;
      if (value !== undefined) out[spec.json] = value;
      else if (spec.required) out[spec.json] = null; // nil slice or map without omitempty
      continue;
    }
    if (isScalarType(spec.type)) {
      renderScalar(out, spec, slot?.scalar);
      continue;
    }
    let value: Json;
    if (slot?.chunks) {
      value = decodeMessage(concat(slot.chunks), spec.type, table, depth + 1);
    } else if (spec.pointer) {
      if (spec.required) out[spec.json] = null;
      continue;
    } else {
      // A struct value is never omitted by encoding/json: print its zero value.
      value = zeroOf(spec.type, table, depth);
    }
    if (spec.inline && typeof value === 'object' && value !== null) Object.assign(out, value);
    else out[spec.json] = value;
  }
  return out;
}

function renderScalar(out: Record<string, Json>, spec: FieldSpec, value: Json): void {
  if (value === undefined) {
    if (spec.pointer || spec.type === 'y') {
      if (spec.required) out[spec.json] = null;
    } else if (spec.required) {
      out[spec.json] = zeroScalar(spec.type as ScalarType);
    }
    return;
  }
  // Go writes every non-pointer scalar to the wire, so presence says nothing there: omitempty decides.
  if (!spec.pointer && !spec.required && (value === zeroScalar(spec.type as ScalarType) || value === '')) return;
  out[spec.json] = value;
}

function zeroScalar(type: ScalarType): Json {
  return type === 'b' ? false : type === 'i32' || type === 'i64' ? 0 : '';
}

function zeroOf(type: string, table: MessageTable, depth: number): Json {
  return isScalarType(type) ? zeroScalar(type) : decodeMessage(new Uint8Array(0), type, table, depth + 1);
}

function expectWire(tag: Tag, wireType: number, where: string): void {
  if (tag.wireType !== wireType) {
    throw new ProtobufDecodeError(`${where}: wire type ${tag.wireType}, expected ${wireType}`);
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  return Buffer.concat(chunks);
}
