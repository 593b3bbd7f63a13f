/** SPDY/3 control frame types (draft 3 §2.6). */
export const FrameType = {
  SynStream: 1,
  SynReply: 2,
  RstStream: 3,
  Settings: 4,
  Ping: 6,
  GoAway: 7,
  Headers: 8,
  WindowUpdate: 9,
} as const;

export const FLAG_FIN = 0x01;

/** RST_STREAM status codes we send. */
export const RstStatus = { ProtocolError: 1, InvalidStream: 2, RefusedStream: 3, Cancel: 5, InternalError: 6 } as const;

export type SpdyFrame =
  | { kind: 'data'; streamId: number; flags: number; data: Buffer }
  | { kind: 'control'; type: number; flags: number; payload: Buffer };

/** The peer sent something that is not SPDY/3. */
export class SpdyProtocolError extends Error {
  override readonly name = 'SpdyProtocolError';
}

const MAX_FRAME = 1 << 24;

export function encodeData(streamId: number, flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt32BE(((flags & 0xff) << 24) | data.length, 4);
  return Buffer.concat([head, data]);
}

export function encodeControl(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | 3, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(((flags & 0xff) << 24) | payload.length, 4);
  return Buffer.concat([head, payload]);
}

/** Incremental decoder of the frame layer (header blocks stay compressed here). */
export class SpdyFrameParser {
  private buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): SpdyFrame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: SpdyFrame[] = [];
    while (this.buf.length >= 8) {
      const b = this.buf;
      const flags = b[4];
      const len = b.readUInt32BE(4) & 0xffffff;
      if (len >= MAX_FRAME) throw new SpdyProtocolError('frame too large');
      if (b.length < 8 + len) break;
      const body = Buffer.from(b.subarray(8, 8 + len));
      this.buf = b.subarray(8 + len);
      if (b[0] & 0x80) {
        const version = b.readUInt16BE(0) & 0x7fff;
        if (version !== 3) throw new SpdyProtocolError(`unsupported SPDY version ${version}`);
        out.push({ kind: 'control', type: b.readUInt16BE(2), flags, payload: body });
      } else {
        out.push({ kind: 'data', streamId: b.readUInt32BE(0) & 0x7fffffff, flags, data: body });
      }
    }
    return out;
  }
}

/** A name/value header block before compression: count, then length-prefixed names and values. */
export function encodeHeaderBlock(headers: Record<string, string>): Buffer {
  const entries = Object.entries(headers);
  const parts: Buffer[] = [u32(entries.length)];
  for (const [k, v] of entries) {
    const name = Buffer.from(k.toLowerCase());
    const value = Buffer.from(v);
    parts.push(u32(name.length), name, u32(value.length), value);
  }
  return Buffer.concat(parts);
}

/** Parses a decompressed header block; several values of one name are joined with NUL, as the spec says. */
export function decodeHeaderBlock(block: Buffer): Record<string, string> {
  if (block.length < 4) throw new SpdyProtocolError('short header block');
  const count = block.readUInt32BE(0);
  let off = 4;
  const take = (): string => {
    if (off + 4 > block.length) throw new SpdyProtocolError('truncated header block');
    const n = block.readUInt32BE(off);
    off += 4;
    if (off + n > block.length) throw new SpdyProtocolError('truncated header block');
    const s = block.toString('utf8', off, off + n);
    off += n;
    return s;
  };
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const name = take().toLowerCase();
    out[name] = take();
  }
  return out;
}

export function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}
