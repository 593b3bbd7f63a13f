import { PROTOBUF_MAGIC } from './decode-protobuf-object.js';

/** Minimal protobuf writer for building test inputs by hand. */
export function varint(value: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Buffer.from(out);
}

export function varintField(field: number, value: number | bigint): Buffer {
  return Buffer.concat([varint(field * 8), varint(value)]);
}

export function bytesField(field: number, value: string | Uint8Array): Buffer {
  const b = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
  return Buffer.concat([varint(field * 8 + 2), varint(b.length), b]);
}

export function message(...fields: Buffer[]): Buffer {
  return Buffer.concat(fields);
}

/** `k8s\0` + runtime.Unknown{typeMeta, raw}. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const typeMeta = message(bytesField(1, apiVersion), bytesField(2, kind));
  return Buffer.concat([PROTOBUF_MAGIC, bytesField(1, typeMeta), bytesField(2, raw)]);
}
