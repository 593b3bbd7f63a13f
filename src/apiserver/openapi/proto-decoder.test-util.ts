/** A tiny protobuf decoder for tests: fields by number, values as raw wire values. */
export interface WireField {
  no: number;
  wireType: number;
  varint?: bigint;
  bytes?: Uint8Array;
  fixed64?: Buffer;
}

export function decode(buf: Uint8Array): WireField[] {
  const out: WireField[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let n = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[pos++];
      if (b === undefined) throw new Error('truncated varint');
      n |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return n;
    }
  };
  while (pos < buf.length) {
    const key = Number(varint());
    const field: WireField = { no: key >> 3, wireType: key & 7 };
    if (field.wireType === 0) field.varint = varint();
    else if (field.wireType === 1) {
      field.fixed64 = Buffer.from(buf.subarray(pos, pos + 8));
      pos += 8;
    } else if (field.wireType === 2) {
      const len = Number(varint());
      field.bytes = buf.subarray(pos, pos + len);
      if (field.bytes.length !== len) throw new Error('truncated bytes');
      pos += len;
    } else throw new Error(`unexpected wire type ${field.wireType}`);
    out.push(field);
  }
  return out;
}

/** All submessages/strings under field `no`. */
export function all(buf: Uint8Array | undefined, no: number): Uint8Array[] {
  if (!buf) return [];
  return decode(buf)
    .filter((f) => f.no === no)
    .map((f) => f.bytes!);
}

export function one(buf: Uint8Array | undefined, no: number): Uint8Array | undefined {
  return all(buf, no)[0];
}

export function str(buf: Uint8Array | undefined, no: number): string | undefined {
  const b = buf && one(buf, no);
  return b && Buffer.from(b).toString('utf8');
}
