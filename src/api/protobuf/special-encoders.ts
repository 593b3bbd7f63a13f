import type { WireWriter } from './wire-writer.js';

/**
 * The apimachinery types whose JSON form is not an object, written as gogo
 * writes them (the inverse of special-types.ts): each writes the body of its
 * message into `w` (the caller opened the field).
 */
export type SpecialEncoder = (w: WireWriter, value: unknown) => void;

/** Seconds and nanoseconds of an RFC 3339 time; undefined for anything else. */
function parseTime(value: unknown): { seconds: number; nanos: number } | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
  const nanos = fraction === '' ? 0 : Number(fraction.slice(0, 9).padEnd(9, '0'));
  return { seconds: Math.floor(ms / 1000), nanos };
}

/** metav1.Time: Timestamp{seconds, nanos=0} (Go keeps only seconds); the zero time (null) is an empty message. */
export const encodeTime: SpecialEncoder = (w, value) => {
  const t = parseTime(value);
  if (!t) return;
  w.int64(1, t.seconds).uint(2, 0);
};

/** metav1.MicroTime: Timestamp{seconds, nanos} at microsecond precision. */
export const encodeMicroTime: SpecialEncoder = (w, value) => {
  const t = parseTime(value);
  if (!t) return;
  w.int64(1, t.seconds).uint(2, Math.floor(t.nanos / 1000) * 1000);
};

/** resource.Quantity: its canonical string in field 1, always ("0" for zero). */
export const encodeQuantity: SpecialEncoder = (w, value) => {
  w.string(1, value === undefined || value === null || value === '' ? '0' : String(value));
};

/** intstr.IntOrString {1 type, 2 intVal, 3 strVal}, all written. */
export const encodeIntOrString: SpecialEncoder = (w, value) => {
  if (typeof value === 'string') w.uint(1, 1).uint(2, 0).string(3, value);
  else w.uint(1, 0).int64(2, typeof value === 'number' ? value : 0).string(3, '');
};

/** metav1.FieldsV1 {1 raw}: the field set as compact JSON. */
export const encodeFieldsV1: SpecialEncoder = (w, value) => {
  if (value !== undefined && value !== null) w.string(1, JSON.stringify(value));
};

/** runtime.RawExtension {1 raw}: the embedded object as JSON; null is no raw at all. */
export const encodeRawExtension: SpecialEncoder = (w, value) => {
  if (value !== undefined && value !== null) w.string(1, JSON.stringify(value));
};

/** metav1.Duration {1 nanoseconds}. */
export const encodeDuration: SpecialEncoder = (w, value) => {
  w.int64(1, typeof value === 'string' ? parseGoDuration(value) : 0n);
};

/** ExtraValue {1 repeated items}. */
export const encodeExtraValue: SpecialEncoder = (w, value) => {
  if (Array.isArray(value)) for (const item of value) w.string(1, typeof item === 'string' ? item : '');
};

const UNITS: Record<string, bigint> = { ns: 1n, us: 1000n, µs: 1000n, μs: 1000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };

/** Go's time.ParseDuration ("1h2m3.5s", "-1.5ms"); 0 for what it cannot read. */
export function parseGoDuration(s: string): bigint {
  const m = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(s);
  if (!m) return 0n;
  let total = 0n;
  for (const part of s.matchAll(/(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/g)) {
    const unit = UNITS[part[3] as string] as bigint;
    total += BigInt(part[1] || '0') * unit;
    const frac = part[2] ?? '';
    if (frac !== '') total += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
  }
  return m[1] === '-' ? -total : total;
}

export const SPECIAL_ENCODERS: Readonly<Record<string, SpecialEncoder>> = {
  Time: encodeTime,
  MicroTime: encodeMicroTime,
  Duration: encodeDuration,
  Quantity: encodeQuantity,
  IntOrString: encodeIntOrString,
  FieldsV1: encodeFieldsV1,
  RawExtension: encodeRawExtension,
  ExtraValue: encodeExtraValue,
};
