/**
 * A minimal protobuf (proto3) encoder: enough wire types for the gnostic
 * OpenAPI messages. Default values (empty string, false, 0) are omitted as
 * proto3 does; embedded messages are always written, since their presence
 * matters (an empty `Paths` is not an absent one).
 */

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;

export class ProtoWriter {
  private readonly parts: Uint8Array[] = [];

  string(field: number, value: string | undefined): this {
    if (value) this.lengthDelimited(field, Buffer.from(value, 'utf8'));
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    if (value) {
      this.key(field, VARINT);
      this.varint(1n);
    }
    return this;
  }

  int64(field: number, value: number | undefined): this {
    if (value) {
      this.key(field, VARINT);
      // Negative int64 values are sent as their 64-bit two's complement.
      this.varint(BigInt.asUintN(64, BigInt(Math.trunc(value))));
    }
    return this;
  }

  double(field: number, value: number | undefined): this {
    if (value) {
      this.key(field, FIXED64);
      const b = Buffer.alloc(8);
      b.writeDoubleLE(value);
      this.parts.push(b);
    }
    return this;
  }

  message(field: number, body: ProtoWriter | Uint8Array): this {
    return this.lengthDelimited(field, body instanceof ProtoWriter ? body.finish() : body);
  }

  finish(): Uint8Array {
    return Buffer.concat(this.parts);
  }

  private lengthDelimited(field: number, bytes: Uint8Array): this {
    this.key(field, LENGTH_DELIMITED);
    this.varint(BigInt(bytes.length));
    this.parts.push(bytes);
    return this;
  }

  private key(field: number, wireType: number): void {
    this.varint(BigInt((field << 3) | wireType));
  }

  private varint(n: bigint): void {
    const out: number[] = [];
    while (n > 0x7fn) {
      out.push(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    out.push(Number(n));
    this.parts.push(Uint8Array.from(out));
  }
}
