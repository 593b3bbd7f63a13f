/** RFC 6455 opcodes. */
export const Opcode = {
  Continuation: 0x0,
  Text: 0x1,
  Binary: 0x2,
  Close: 0x8,
  Ping: 0x9,
  Pong: 0xa,
} as const;

export interface WebSocketFrame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

/** The peer broke RFC 6455; `code` is the close code to answer with. */
export class WebSocketProtocolError extends Error {
  override readonly name = 'WebSocketProtocolError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Encodes one frame; `mask` is given by clients only (servers never mask). */
export function encodeFrame(frame: WebSocketFrame, mask?: Buffer): Buffer {
  const len = frame.payload.length;
  const extra = len < 126 ? 0 : len < 0x10000 ? 2 : 8;
  const head = Buffer.alloc(2 + extra + (mask ? 4 : 0));
  head[0] = (frame.fin ? 0x80 : 0) | frame.opcode;
  head[1] = (mask ? 0x80 : 0) | (extra === 0 ? len : extra === 2 ? 126 : 127);
  if (extra === 2) head.writeUInt16BE(len, 2);
  if (extra === 8) head.writeBigUInt64BE(BigInt(len), 2);
  if (!mask) return Buffer.concat([head, frame.payload]);
  mask.copy(head, 2 + extra);
  return Buffer.concat([head, applyMask(frame.payload, mask)]);
}

export function applyMask(data: Buffer, mask: Buffer): Buffer {
  const out = Buffer.allocUnsafe(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i] ^ mask[i & 3];
  return out;
}

/**
 * Incremental frame decoder: feed it socket chunks, it returns the complete
 * frames (unmasked). `requireMask` is set on servers: RFC 6455 §5.1 says a
 * server must fail the connection on an unmasked client frame.
 */
export class FrameParser {
  private buf: Buffer = Buffer.alloc(0);

  constructor(private readonly opts: { requireMask: boolean; maxPayload: number }) {}

  push(chunk: Buffer): WebSocketFrame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const frames: WebSocketFrame[] = [];
    for (;;) {
      const f = this.next();
      if (!f) return frames;
      frames.push(f);
    }
  }

  private next(): WebSocketFrame | undefined {
    const b = this.buf;
    if (b.length < 2) return undefined;
    const fin = (b[0] & 0x80) !== 0;
    if (b[0] & 0x70) throw new WebSocketProtocolError(1002, 'reserved bits set without a negotiated extension');
    const opcode = b[0] & 0x0f;
    const masked = (b[1] & 0x80) !== 0;
    if (this.opts.requireMask && !masked) throw new WebSocketProtocolError(1002, 'client frame is not masked');
    let len = b[1] & 0x7f;
    let off = 2;
    if (len === 126) {
      if (b.length < 4) return undefined;
      len = b.readUInt16BE(2);
      off = 4;
    } else if (len === 127) {
      if (b.length < 10) return undefined;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(this.opts.maxPayload)) throw new WebSocketProtocolError(1009, 'frame too large');
      len = Number(big);
      off = 10;
    }
    if (opcode >= 0x8 && (len > 125 || !fin)) throw new WebSocketProtocolError(1002, 'control frames must be short and unfragmented');
    if (len > this.opts.maxPayload) throw new WebSocketProtocolError(1009, 'frame too large');
    const maskAt = off;
    if (masked) off += 4;
    if (b.length < off + len) return undefined;
    let payload = b.subarray(off, off + len);
    if (masked) payload = applyMask(payload, b.subarray(maskAt, maskAt + 4));
    else payload = Buffer.from(payload);
    this.buf = b.subarray(off + len);
    return { fin, opcode, payload };
  }
}
