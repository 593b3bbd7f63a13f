import { ProtobufDecodeError } from './protobuf-decode-error.js';
import { WireReader, WireType, type Tag } from './wire-reader.js';

/**
 * apimachinery types whose JSON form is not an object: each turns its
 * message payload (possibly empty, the Go zero value) into its JSON value.
 */
export type SpecialDecoder = (payload: Uint8Array) => unknown;

/** Reads the varint / string fields of a small message, skipping anything else. */
function readFields(payload: Uint8Array): Map<number, bigint | Uint8Array> {
  const out = new Map<number, bigint | Uint8Array>();
  const r = new WireReader(payload);
  while (!r.done) {
    const tag: Tag = r.tag();
    if (tag.wireType === WireType.Varint) out.set(tag.field, r.varint());
    else if (tag.wireType === WireType.LengthDelimited) out.set(tag.field, r.bytes());
    else r.skip(tag);
  }
  return out;
}

function intField(fields: Map<number, bigint | Uint8Array>, n: number, bits: 32 | 64): number {
  const v = fields.get(n);
  if (v === undefined) return 0;
  if (typeof v !== 'bigint') throw new ProtobufDecodeError(`field ${n}: expected varint`);
  return Number(BigInt.asIntN(bits, v));
}

const utf8 = new TextDecoder('utf-8');

function stringField(fields: Map<number, bigint | Uint8Array>, n: number): string {
  const v = fields.get(n);
  if (v === undefined) return '';
  if (typeof v === 'bigint') throw new ProtobufDecodeError(`field ${n}: expected length-delimited`);
  return utf8.decode(v);
}

function isoSeconds(seconds: number, fraction = ''): string {
  const ms = seconds * 1000;
  // Go refuses years outside 0000-9999 when marshalling RFC3339; so do we.
  if (!Number.isFinite(ms) || ms < -62167219200000 || ms > 253402300799000) {
    throw new ProtobufDecodeError(`timestamp ${seconds} out of range`);
  }
  return new Date(ms).toISOString().slice(0, 19) + fraction + 'Z';
}

/** metav1.Time {1 seconds, 2 nanos}: empty is the zero time (JSON null); nanos are dropped like Go does. */
export const decodeTime: SpecialDecoder = (payload) => {
  if (payload.length === 0) return null;
  return isoSeconds(intField(readFields(payload), 1, 64));
};

/** metav1.MicroTime: like Time but printed with microseconds (RFC3339Micro). */
export const decodeMicroTime: SpecialDecoder = (payload) => {
  if (payload.length === 0) return null;
  const f = readFields(payload);
  const nanos = intField(f, 2, 32);
  if (nanos < 0 || nanos > 999_999_999) throw new ProtobufDecodeError(`nanos ${nanos} out of range`);
  const micros = Math.floor(nanos / 1000);
  return isoSeconds(intField(f, 1, 64), '.' + String(micros).padStart(6, '0'));
};

/** resource.Quantity {1 string}: already canonical on the wire; zero prints as "0". */
export const decodeQuantity: SpecialDecoder = (payload) => stringField(readFields(payload), 1) || '0';

/** intstr.IntOrString {1 type, 2 intVal, 3 strVal}. */
export const decodeIntOrString: SpecialDecoder = (payload) => {
  const f = readFields(payload);
  return intField(f, 1, 64) === 1 ? stringField(f, 3) : intField(f, 2, 32);
};

/** metav1.FieldsV1 {1 raw}: the raw bytes are the JSON field set. */
export const decodeFieldsV1: SpecialDecoder = (payload) => {
  const raw = stringField(readFields(payload), 1);
  if (raw === '') return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new ProtobufDecodeError('fieldsV1 is not JSON');
  }
};

/** metav1.Duration {1 nanoseconds}: printed the way Go's time.Duration.String() does. */
export const decodeDuration: SpecialDecoder = (payload) => {
  const v = readFields(payload).get(1) ?? 0n;
  if (typeof v !== 'bigint') throw new ProtobufDecodeError('duration: expected varint');
  return formatGoDuration(BigInt.asIntN(64, v));
};

/** Go's time.Duration.String(): "1h2m3.5s", "1.5ms", "0s". */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u < 1_000_000_000n) {
    const [unit, div] = u < 1000n ? ['ns', 1n] : u < 1_000_000n ? ['µs', 1000n] : ['ms', 1_000_000n];
    out = fixed(u, div) + unit;
  } else {
    const h = u / 3_600_000_000_000n;
    u -= h * 3_600_000_000_000n;
    const m = u / 60_000_000_000n;
    u -= m * 60_000_000_000n;
    out = fixed(u, 1_000_000_000n) + 's';
    if (h > 0n || m > 0n) out = `${m}m` + out;
    if (h > 0n) out = `${h}h` + out;
  }
  return neg ? '-' + out : out;
}

/** `value / div` with the fraction's trailing zeros trimmed. */
function fixed(value: bigint, div: bigint): string {
  const whole = value / div;
  const rest = value % div;
  if (rest === 0n) return whole.toString();
  const digits = div.toString().length - 1;
  return `${whole}.${rest.toString().padStart(digits, '0').replace(/0+$/, '')}`;
}

/** runtime.RawExtension {1 raw}: the embedded JSON as it is; empty is JSON null. */
export const decodeRawExtension: SpecialDecoder = (payload) => {
  const raw = readFields(payload).get(1);
  if (raw === undefined || typeof raw === 'bigint' || raw.length === 0) return null;
  try {
    return JSON.parse(utf8.decode(raw)) as unknown;
  } catch {
    throw new ProtobufDecodeError('RawExtension: raw is not JSON');
  }
};

/** ExtraValue {1 repeated items}: a user's extra values, a JSON list of strings. */
export const decodeExtraValue: SpecialDecoder = (payload) => {
  const items: string[] = [];
  const r = new WireReader(payload);
  while (!r.done) {
    const tag = r.tag();
    if (tag.field === 1 && tag.wireType === WireType.LengthDelimited) items.push(utf8.decode(r.bytes()));
    else if (tag.field === 1) throw new ProtobufDecodeError('ExtraValue: expected length-delimited');
    else r.skip(tag);
  }
  return items;
};

export const SPECIAL_TYPES: Readonly<Record<string, SpecialDecoder>> = {
  Time: decodeTime,
  MicroTime: decodeMicroTime,
  Duration: decodeDuration,
  Quantity: decodeQuantity,
  IntOrString: decodeIntOrString,
  FieldsV1: decodeFieldsV1,
  RawExtension: decodeRawExtension,
  ExtraValue: decodeExtraValue,
};
