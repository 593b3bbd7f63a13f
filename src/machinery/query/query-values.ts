/**
 * Query parameters read the way upstream's parameter codec reads them into
 * option structs (apimachinery `runtime/conversion.go`): the first value of
 * a repeated parameter wins, booleans are lenient, integers are Go's
 * `strconv.ParseInt`, and a value that does not convert is a 400 whose
 * message is the Go conversion error.
 */
import { badRequest } from '../api-error.js';

/** Go's `strconv.Quote` for the values we meet in query strings. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** `strconv.ParseInt(s, 10, 64)`: an optional sign and decimal digits, nothing else. */
export function parseGoInt64(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n < INT64_MIN || n > INT64_MAX) throw badRequest(`strconv.ParseInt: parsing ${goQuote(s)}: value out of range`);
  return Number(n);
}

/** `strconv.ParseUint(s, 10, bits)`. */
export function parseGoUint(s: string, bits: number): number {
  if (!/^\d+$/.test(s)) throw new GoSyntaxError(`strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n >= 2n ** BigInt(bits)) throw new GoSyntaxError(`strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return Number(n);
}

/** A conversion failure worded as Go words it; callers wrap it as upstream does. */
export class GoSyntaxError extends Error {
  override readonly name = 'GoSyntaxError';
}

/** Go's `strconv.ParseBool`: undefined for anything it refuses. */
export function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

/** The first value of a parameter (upstream's `[]string → string`), undefined when absent. */
export function stringParam(q: URLSearchParams, name: string): string | undefined {
  return q.get(name) ?? undefined;
}

/** Every value of a repeated parameter (`dryRun`, `command`). */
export function stringsParam(q: URLSearchParams, name: string): string[] {
  return q.getAll(name);
}

/**
 * upstream's `[]string → bool`: only "0" and any case of "false" are false;
 * every other value, the empty one included, is true (`watch=True`,
 * `follow=`, `stdout=yes`). Absent is false.
 */
export function boolParam(q: URLSearchParams, name: string): boolean {
  return optionalBoolParam(q, name) ?? false;
}

/** As `boolParam` for `*bool` fields: undefined when absent. */
export function optionalBoolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** upstream's `[]string → *int64`: undefined when absent, a 400 when not an integer (the empty value included). */
export function int64Param(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  return v === null ? undefined : parseGoInt64(v);
}

/**
 * upstream's `[]string → []int32` for port-forward ports: every value, each
 * a comma-separated list of 16-bit unsigned integers.
 */
export function portsParam(q: URLSearchParams, name: string): number[] {
  const out: number[] = [];
  for (const value of q.getAll(name)) {
    for (const part of value.split(',')) {
      try {
        out.push(parseGoUint(part, 16));
      } catch (err) {
        if (err instanceof GoSyntaxError) throw badRequest(`cannot convert to []int32: ${err.message}`);
        throw err;
      }
    }
  }
  return out;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * metav1.Time's `UnmarshalQueryParameter`: RFC 3339; empty and "null" mean
 * unset; anything else is a 400 with Go's time.Parse error.
 */
export function timeParam(q: URLSearchParams, name: string): Date | undefined {
  const v = q.get(name);
  if (v === null || v === '' || v === 'null') return undefined;
  const d = RFC3339.test(v) ? new Date(v) : undefined;
  if (!d || Number.isNaN(d.getTime())) {
    throw badRequest(`parsing time ${goQuote(v)} as "2006-01-02T15:04:05Z07:00": cannot parse ${goQuote(v)} as "2006"`);
  }
  return d;
}
