import { Duplex } from 'node:stream';
import { HeaderCodec } from './header-compression.js';
import {
  decodeHeaderBlock, encodeControl, encodeData, encodeHeaderBlock, FLAG_FIN, FrameType, RstStatus, SpdyFrameParser, u32, type SpdyFrame,
} from './spdy-frame.js';

/** A stream the client opened: read the client's data, write ours; `end()` sends FIN. */
export class SpdyStream extends Duplex {
  constructor(
    readonly id: number,
    readonly headers: Record<string, string>,
    private readonly session: SpdySession,
  ) {
    super({ allowHalfOpen: true });
  }

  override _read(): void {
    // the session pushes data frames as they arrive
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.session.send(encodeData(this.id, 0, chunk)).then(() => cb(), cb);
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.session.send(encodeData(this.id, FLAG_FIN, Buffer.alloc(0))).then(() => cb(), cb);
  }
}

/**
 * The server side of a SPDY/3.1 connection as Kubernetes streaming uses it:
 * the client opens every stream (SYN_STREAM with its headers), we accept each
 * with an empty SYN_REPLY and hand it to `onStream`. PINGs are echoed; flow
 * control is not enforced (neither does the Go client, spdystream).
 */
export class SpdySession {
  readonly closed: Promise<void>;
  private readonly parser = new SpdyFrameParser();
  private readonly compress = new HeaderCodec('compress');
  private readonly decompress = new HeaderCodec('decompress');
  private readonly streams = new Map<number, SpdyStream>();
  private incoming: Promise<void> = Promise.resolve();
  private outgoing: Promise<void> = Promise.resolve();
  private lastStreamId = 0;

  constructor(
    private readonly socket: Duplex,
    private readonly onStream: (stream: SpdyStream) => void,
  ) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => socket.destroy());
    socket.on('end', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      let frames: SpdyFrame[];
      try {
        frames = this.parser.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const f of frames) this.incoming = this.incoming.then(() => this.handle(f)).catch(() => void socket.destroy());
    });
    void this.closed.then(() => {
      for (const s of this.streams.values()) s.destroy();
      this.streams.clear();
      this.compress.close();
      this.decompress.close();
    });
  }

  /** Writes a frame after everything queued before it (SYN_REPLY before data). */
  send(frame: Buffer | (() => Promise<Buffer>)): Promise<void> {
    const next = this.outgoing.then(async () => {
      if (this.socket.destroyed) throw new Error('connection closed');
      const bytes = typeof frame === 'function' ? await frame() : frame;
      if (!this.socket.write(bytes)) await new Promise<void>((resolve) => {
        this.socket.once('drain', resolve);
        this.socket.once('close', resolve);
      });
    });
    this.outgoing = next.catch(() => undefined);
    return next;
  }

  /** GOAWAY, then the connection ends. */
  close(): void {
    if (this.socket.destroyed) return;
    void this.send(encodeControl(FrameType.GoAway, 0, Buffer.concat([u32(this.lastStreamId), u32(0)])))
      .finally(() => this.socket.end())
      .catch(() => undefined);
  }

  private async handle(f: SpdyFrame): Promise<void> {
    if (f.kind === 'data') {
      const s = this.streams.get(f.streamId);
      if (!s) return void this.send(rst(f.streamId, RstStatus.InvalidStream)).catch(() => undefined);
      if (f.data.length) s.push(f.data);
      if (f.flags & FLAG_FIN) s.push(null);
      return;
    }
    const p = f.payload;
    switch (f.type) {
      case FrameType.SynStream: {
        const id = p.readUInt32BE(0) & 0x7fffffff;
        const headers = decodeHeaderBlock(await this.decompress.process(p.subarray(10)));
        this.lastStreamId = Math.max(this.lastStreamId, id);
        const stream = new SpdyStream(id, headers, this);
        this.streams.set(id, stream);
        stream.once('close', () => this.streams.delete(id));
        await this.send(async () => encodeControl(FrameType.SynReply, 0, Buffer.concat([u32(id), await this.compress.process(encodeHeaderBlock({}))])));
        if (f.flags & FLAG_FIN) stream.push(null);
        this.onStream(stream);
        return;
      }
      case FrameType.Headers:
        // keep the shared zlib state in step even though we need nothing from it
        await this.decompress.process(p.subarray(4));
        return;
      case FrameType.RstStream:
        this.streams.get(p.readUInt32BE(0) & 0x7fffffff)?.destroy();
        return;
      case FrameType.Ping:
        return void this.send(encodeControl(FrameType.Ping, 0, p.subarray(0, 4))).catch(() => undefined);
      case FrameType.GoAway:
        this.socket.end();
        return;
      default:
        // SETTINGS, WINDOW_UPDATE and unknown types need no answer
        return;
    }
  }
}

function rst(streamId: number, status: number): Buffer {
  return encodeControl(FrameType.RstStream, 0, Buffer.concat([u32(streamId), u32(status)]));
}
