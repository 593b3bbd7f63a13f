/**
 * The few protobuf wire primitives the etcd messages need. Numbers are JS
 * numbers: etcd revisions stay far below 2^53; the 64-bit ids (cluster and
 * member ids) lose precision, which is harmless because we never use them.
 */

const encoder = new TextEncoder();

export class ProtoWriter {
  private readonly chunks: number[] = [];
  private readonly parts: Uint8Array[] = [];

  private varint(value: number): void {
    let v = value;
    if (v < 0) throw new RangeError('negative varints are not used by the etcd messages we send');
    while (v >= 0x80) {
      this.chunks.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.chunks.push(v);
  }

  private flush(): void {
    if (this.chunks.length > 0) {
      this.parts.push(Uint8Array.from(this.chunks));
      this.chunks.length = 0;
    }
  }

  /** A varint field; zero is written only when `always` (oneof members must be present). */
  uint(field: number, value: number | boolean | undefined, always = false): this {
    const n = typeof value === 'boolean' ? Number(value) : (value ?? 0);
    if (n === 0 && !always) return this;
    this.varint((field << 3) | 0);
    this.varint(n);
    return this;
  }

  bytes(field: number, value: Uint8Array | string | undefined, always = false): this {
    if (value === undefined) return this;
    const data = typeof value === 'string' ? encoder.encode(value) : value;
    if (data.length === 0 && !always) return this;
    this.varint((field << 3) | 2);
    this.varint(data.length);
    this.flush();
    this.parts.push(data);
    return this;
  }

  message(field: number, nested: ProtoWriter): this {
    return this.bytes(field, nested.finish(), true);
  }

  finish(): Uint8Array {
    this.flush();
    return Buffer.concat(this.parts);
  }
}

/** Iterates the fields of one message: `for (const f of fields(buf))`. */
export interface ProtoField {
  field: number;
  /** The varint value (wire type 0). */
  num: number;
  /** The payload (wire type 2). */
  data: Uint8Array;
}

export class ProtoDecodeError extends Error {
  override readonly name = 'ProtoDecodeError';
}

const EMPTY = new Uint8Array(0);

export function* fields(buf: Uint8Array): Generator<ProtoField> {
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (pos >= buf.length) throw new ProtoDecodeError('truncated varint');
      const b = buf[pos++]!;
      result += (b & 0x7f) * scale;
      scale *= 0x80;
      if ((b & 0x80) === 0) return result;
    }
    throw new ProtoDecodeError('varint longer than 10 bytes');
  };
  while (pos < buf.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (wire === 0) {
      yield { field, num: varint(), data: EMPTY };
    } else if (wire === 2) {
      const len = varint();
      if (pos + len > buf.length) throw new ProtoDecodeError('length-delimited field runs past the end');
      yield { field, num: 0, data: buf.subarray(pos, pos + len) };
      pos += len;
    } else if (wire === 1) {
      pos += 8;
    } else if (wire === 5) {
      pos += 4;
    } else {
      throw new ProtoDecodeError(`unsupported wire type ${wire}`);
    }
  }
}
