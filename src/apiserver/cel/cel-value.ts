import type { Schema } from '../apiextensions/schema/json-schema.js';
import { additionalSchema, isObject, itemsSchema } from '../apiextensions/schema/json-schema.js';

/** A JSON value made ready for CEL, and how many elements it holds (for the cost bound). */
export interface CelValue {
  value: unknown;
  size: number;
}

/**
 * JSON → CEL values: integers become CEL ints (bigint), other numbers
 * doubles, as upstream's UnstructuredToVal does with the schema's types
 * (without a schema, integral numbers are ints, as Go decodes them).
 */
export function toCel(value: unknown, schema?: Schema): CelValue {
  const counter = { n: 0 };
  return { value: convert(value, schema, counter), size: counter.n };
}

function convert(v: unknown, s: Schema | undefined, counter: { n: number }): unknown {
  if (typeof v === 'number') {
    if (s?.type === 'number') return v;
    return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) {
    counter.n += v.length;
    const items = s ? itemsSchema(s) : undefined;
    return v.map((x) => convert(x, items, counter));
  }
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    const props = s?.properties;
    const extra = s ? additionalSchema(s) : undefined;
    for (const k of Object.keys(v)) {
      counter.n++;
      out[k] = convert(v[k], props?.[k] ?? extra, counter);
    }
    return out;
  }
  return v;
}
