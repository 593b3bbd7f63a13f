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

  tag(): Tag {
    const v = this.varint();
    const field = Number(v >> 3n);
    const wireType = Number(v & 7n);
    if (field < 1 || field > 0x1fffffff) throw new ProtobufDecodeError(`invalid field number ${field}`);
    if (wireType > 5) throw new ProtobufDecodeError(`invalid wire type ${wireType} for field ${field}`);
    return { field, wireType };
  }

  /** The payload of a length-delimited field, as a view (no copy). */
  bytes(): Uint8Array {
    const len = this.varint();
    if (len > BigInt(this.end - this.pos)) throw new ProtobufDecodeError('length-delimited field runs past the end');
    const n = Number(len);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
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
