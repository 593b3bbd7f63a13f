import { WireType } from './wire-reader.js';

export interface WireWriterOptions {
  /**
   * proto3 implicit presence: a scalar equal to its zero value (0, false, an
   * empty string or byte string) is not written unless the call says
   * `always` (a oneof member). Kubernetes objects are proto2 (gogo) and write
   * every non-pointer scalar, so they leave this off.
   */
  skipDefaults?: boolean;
}

const INITIAL_SIZE = 256;

/**
 * The one protobuf wire writer (https://protobuf.dev/programming-guides/encoding/)
 * shared by the Kubernetes object codec, the etcd client and the OpenAPI
 * (gnostic) encoder. One growable buffer; a nested message is opened with
 * `fork` and closed with `join`, which writes its length in front of it
 * (moving the body only when the length needs more than the one byte kept
 * for it), so deep objects are not copied level by level.
 * `undefined` values are never written.
 */
export class WireWriter {
  private buf: Buffer = Buffer.allocUnsafe(INITIAL_SIZE);
  private pos = 0;
  private readonly skipDefaults: boolean;

  constructor(opts: WireWriterOptions = {}) {
    this.skipDefaults = opts.skipDefaults ?? false;
  }

  get length(): number {
    return this.pos;
  }

  /** A varint field (bool, enum, int32, int64, uint64); negative numbers as 64-bit two's complement. */
  uint(field: number, value: number | bigint | boolean | undefined, always = false): this {
    if (value === undefined) return this;
    const n = typeof value === 'boolean' ? Number(value) : value;
    if (this.skipDefaults && !always && (n === 0 || n === 0n)) return this;
    this.tag(field, WireType.Varint);
    this.varint(n);
    return this;
  }

  bool(field: number, value: boolean | undefined, always = false): this {
    return this.uint(field, value, always);
  }

  int64(field: number, value: number | bigint | undefined, always = false): this {
    if (typeof value === 'number' && Number.isNaN(value)) return this;
    return this.uint(field, typeof value === 'number' ? Math.trunc(value) : value, always);
  }

  string(field: number, value: string | undefined, always = false): this {
    if (value === undefined || (this.skipDefaults && !always && value === '')) return this;
    this.tag(field, WireType.LengthDelimited);
    if (value.length < 128 && this.ascii(value)) return this;
    const n = Buffer.byteLength(value, 'utf8');
    this.varint(n);
    this.ensure(n);
    this.pos += this.buf.write(value, this.pos, n, 'utf8');
    return this;
  }

  bytes(field: number, value: Uint8Array | string | undefined, always = false): this {
    if (typeof value === 'string') return this.string(field, value, always);
    if (value === undefined || (this.skipDefaults && !always && value.length === 0)) return this;
    this.tag(field, WireType.LengthDelimited);
    this.varint(value.length);
    this.raw(value);
    return this;
  }

  double(field: number, value: number | undefined, always = false): this {
    if (value === undefined || (this.skipDefaults && !always && value === 0)) return this;
    this.tag(field, WireType.Fixed64);
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
    return this;
  }

  /** An embedded message, written even when empty (its presence matters). */
  message(field: number, nested: WireWriter | Uint8Array): this {
    const body = nested instanceof WireWriter ? nested.view() : nested;
    this.tag(field, WireType.LengthDelimited);
    this.varint(body.length);
    this.raw(body);
    return this;
  }

  /** Opens an embedded message in place; close it with `join(mark)`. */
  fork(field: number): number {
    this.tag(field, WireType.LengthDelimited);
    this.ensure(1);
    this.pos++; // room for a length below 128, the common case
    return this.pos;
  }

  /** Closes the message opened by `fork`, writing its length before it. */
  join(mark: number): this {
    const len = this.pos - mark;
    const size = varintSize(len);
    if (size > 1) {
      this.ensure(size - 1);
      this.buf.copyWithin(mark + size - 1, mark, this.pos);
      this.pos += size - 1;
    }
    let at = mark - 1;
    let v = len;
    while (v >= 0x80) {
      this.buf[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[at] = v;
    return this;
  }

  /** Bytes written so far, copied out. */
  finish(): Buffer {
    return Buffer.from(this.view());
  }

  /** Bytes written so far, as a view valid until the next write. */
  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  varint(value: number | bigint): void {
    this.ensure(10);
    if (typeof value === 'number' && value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v >= 0x80) {
        this.buf[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      this.buf[this.pos++] = v;
      return;
    }
    if (typeof value === 'number' && !Number.isInteger(value)) throw new RangeError(`varint of non-integer ${value}`);
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  /** Writes a short string's length and bytes when it is all ASCII (most names, labels and images), without a native call; false otherwise. */
  private ascii(value: string): boolean {
    const n = value.length;
    this.ensure(n + 1);
    const buf = this.buf;
    let at = this.pos + 1;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c >= 0x80) return false;
      buf[at++] = c;
    }
    buf[this.pos] = n;
    this.pos = at;
    return true;
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}

/** Bytes a varint of `n` takes on the wire. */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}
