import { ProtobufDecodeError } from './protobuf-decode-error.js';

/** Protobuf wire types (https://protobuf.dev/programming-guides/encoding/). */
export const WireType = {
  Varint: 0,
  Fixed64: 1,
  LengthDelimited: 2,
  StartGroup: 3,
  EndGroup: 4,
  Fixed32: 5,
} as const;

export interface Tag {
  field: number;
  wireType: number;
}

const utf8 = new TextDecoder('utf-8');

/** Groups are long deprecated; nesting deeper than this is hostile input. */
const MAX_GROUP_DEPTH = 64;

/**
 * A bounds-checked cursor over protobuf wire data. Every read past the end or
 * of an impossible value throws ProtobufDecodeError, so callers never see a
 * RangeError or an endless loop.
 */
export class WireReader {
  private pos: number;

  constructor(
    private readonly buf: Uint8Array,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  /** An unsigned varint of up to 64 bits. */
  varint(): bigint {
    let result = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufDecodeError('truncated varint');
      const b = this.buf[this.pos++] as number;
      result |= BigInt(b & 0x7f) << BigInt(7 * i);
      if ((b & 0x80) === 0) return BigInt.asUintN(64, result);
    }
    throw new ProtobufDecodeError('varint longer than 10 bytes');
  }

  /**
   * A varint as a JS number: exact below 2^53 (lengths, tags, revisions);
   * larger values lose precision, so 64-bit signed fields use `varint()`.
   */
  uint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufDecodeError('truncated varint');
      const b = this.buf[this.pos++] as number;
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return result;
      scale *= 0x80;
    }
    throw new ProtobufDecodeError('varint longer than 10 bytes');
  }

  /** A signed 64-bit (or 32-bit) varint as a JS number: the fast path for small values, two's complement for negative ones. */
  int(bits: 32 | 64): number {
    const start = this.pos;
    const v = this.uint();
    if (v <= Number.MAX_SAFE_INTEGER && (bits === 64 || v <= 0x7fffffff)) return v;
    this.pos = start;
    return Number(BigInt.asIntN(bits, this.varint()));
  }

  tag(): Tag {
    const v = this.uint();
    const field = Math.floor(v / 8);
    const wireType = v % 8;
    if (field < 1 || field > 0x1fffffff) throw new ProtobufDecodeError(`invalid field number ${field}`);
    if (wireType > 5) throw new ProtobufDecodeError(`invalid wire type ${wireType} for field ${field}`);
    return { field, wireType };
  }

  /** The payload of a length-delimited field, as a view (no copy). */
  bytes(): Uint8Array {
    const n = this.uint();
    if (n > this.end - this.pos) throw new ProtobufDecodeError('length-delimited field runs past the end');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A length-delimited UTF-8 string; short ASCII ones are read without a decoder call. */
  string(): string {
    const n = this.uint();
    if (n > this.end - this.pos) throw new ProtobufDecodeError('length-delimited field runs past the end');
    const start = this.pos;
    this.pos += n;
    if (n < 64) {
      let out = '';
      for (let i = start; i < start + n; i++) {
        const c = this.buf[i] as number;
        if (c >= 0x80) return utf8.decode(this.buf.subarray(start, start + n));
        out += String.fromCharCode(c);
      }
      return out;
    }
    return utf8.decode(this.buf.subarray(start, start + n));
  }

  fixed64(): bigint {
    const b = this.take(8);
    return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
  }

  fixed32(): number {
    const b = this.take(4);
    return new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);
  }

  /** Skips the value of a field we have no schema for. */
  skip(tag: Tag, depth = 0): void {
    switch (tag.wireType) {
      case WireType.Varint:
        this.varint();
        return;
      case WireType.Fixed64:
        this.take(8);
        return;
      case WireType.LengthDelimited:
        this.bytes();
        return;
      case WireType.Fixed32:
        this.take(4);
        return;
      case WireType.StartGroup:
        this.skipGroup(tag.field, depth);
        return;
      default:
        throw new ProtobufDecodeError(`unexpected end-group for field ${tag.field}`);
    }
  }

  private skipGroup(field: number, depth: number): void {
    if (depth >= MAX_GROUP_DEPTH) throw new ProtobufDecodeError('groups nested too deeply');
    for (;;) {
      if (this.done) throw new ProtobufDecodeError(`unterminated group ${field}`);
      const t = this.tag();
      if (t.wireType === WireType.EndGroup) {
        if (t.field !== field) throw new ProtobufDecodeError(`mismatched end-group ${t.field} for group ${field}`);
        return;
      }
      this.skip(t, depth + 1);
    }
  }

  private take(n: number): Uint8Array {
    if (this.end - this.pos < n) throw new ProtobufDecodeError('truncated fixed-width field');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

/** One field of a message: a varint's value (`num`) or a length-delimited payload (`data`). */
export interface WireField {
  field: number;
  wireType: number;
  /** The varint value (wire type 0), exact below 2^53. */
  num: number;
  /** The payload (wire type 2), a view into the message. */
  data: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/** The fields of one message in wire order, fixed-width and group fields skipped: `for (const f of wireFields(buf))`. */
export function* wireFields(buf: Uint8Array): Generator<WireField> {
  const r = new WireReader(buf);
  while (!r.done) {
    const tag = r.tag();
    if (tag.wireType === WireType.Varint) yield { field: tag.field, wireType: tag.wireType, num: r.uint(), data: EMPTY };
    else if (tag.wireType === WireType.LengthDelimited) yield { field: tag.field, wireType: tag.wireType, num: 0, data: r.bytes() };
    else r.skip(tag);
  }
}
