import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Duplex } from 'node:stream';
import { encodeFrame, FrameParser, Opcode, WebSocketProtocolError } from './websocket-frame.js';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const MAX_MESSAGE = 64 << 20;

/** Sec-WebSocket-Accept for a client's Sec-WebSocket-Key (RFC 6455 §4.2.2). */
export function acceptKey(key: string): string {
  return createHash('sha1').update(key + GUID).digest('base64');
}

/** Whether an upgrade request asks for a WebSocket. */
export function isWebSocketRequest(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** The client's offered subprotocols, in its order of preference. */
export function offeredProtocols(req: IncomingMessage): string[] {
  const raw = req.headers['sec-websocket-protocol'];
  return (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).split(',').map((p) => p.trim()).filter(Boolean);
}

export interface WebSocketMessage {
  binary: boolean;
  data: Buffer;
}

/**
 * The server end of an RFC 6455 connection over an upgraded socket: unmasks
 * and reassembles fragmented messages, answers pings, and runs the closing
 * handshake. Messages arrive through `onMessage`; `closed` settles once the
 * socket is gone, whoever closed it.
 */
export class WebSocketConnection {
  readonly closed: Promise<void>;
  private readonly parser = new FrameParser({ requireMask: true, maxPayload: MAX_MESSAGE });
  private fragments: Buffer[] = [];
  private fragmentOpcode = 0;
  private closeSent = false;
  private messageListener: (m: WebSocketMessage) => void = () => undefined;

  constructor(
    private readonly socket: Duplex,
    readonly protocol: string,
    head?: Buffer,
  ) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    // a peer that vanishes without a close frame still ends the session
    socket.on('end', () => socket.destroy());
    if (head?.length) queueMicrotask(() => this.receive(head));
  }

  /** Completes the handshake, picking the first offered protocol we support; undefined (after a 400) if none fits. */
  static accept(req: IncomingMessage, socket: Duplex, head: Buffer, supported: readonly string[]): WebSocketConnection | undefined {
    const key = req.headers['sec-websocket-key'];
    const offered = offeredProtocols(req);
    const protocol = offered.find((p) => supported.includes(p));
    if (!key || req.headers['sec-websocket-version'] !== '13' || (offered.length > 0 && !protocol)) {
      const body = `websocket upgrade failed: want Sec-WebSocket-Version 13 and one of the protocols ${supported.join(', ')}\n`;
      socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return undefined;
    }
    const lines = ['HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket', 'Connection: Upgrade', `Sec-WebSocket-Accept: ${acceptKey(key)}`];
    if (protocol) lines.push(`Sec-WebSocket-Protocol: ${protocol}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    return new WebSocketConnection(socket, protocol ?? '', head);
  }

  onMessage(listener: (m: WebSocketMessage) => void): void {
    this.messageListener = listener;
  }

  get isOpen(): boolean {
    return !this.closeSent && !this.socket.destroyed;
  }

  /** Sends one unfragmented message; false when the socket buffer is full (see `drained`). */
  send(data: Buffer, binary = true): boolean {
    if (!this.isOpen) return false;
    return this.socket.write(encodeFrame({ fin: true, opcode: binary ? Opcode.Binary : Opcode.Text, payload: data }));
  }

  /** Resolves when the socket can take more (or is gone). */
  drained(): Promise<void> {
    if (!this.socket.writableNeedDrain || this.socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.once('drain', done);
      this.socket.once('close', done);
    });
  }

  /** Starts the closing handshake; the socket ends when the peer answers, or after a short grace. */
  close(code = 1000, reason = ''): void {
    if (this.closeSent || this.socket.destroyed) return;
    this.closeSent = true;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.socket.write(encodeFrame({ fin: true, opcode: Opcode.Close, payload }));
    const timer = setTimeout(() => this.socket.destroy(), 2000);
    timer.unref();
    this.socket.once('close', () => clearTimeout(timer));
  }

  private receive(chunk: Buffer): void {
    try {
      for (const f of this.parser.push(chunk)) this.frame(f.opcode, f.fin, f.payload);
    } catch (err) {
      const code = err instanceof WebSocketProtocolError ? err.code : 1011;
      this.close(code, err instanceof Error ? err.message.slice(0, 100) : '');
      this.socket.destroy();
    }
  }

  private frame(opcode: number, fin: boolean, payload: Buffer): void {
    switch (opcode) {
      case Opcode.Ping:
        if (!this.closeSent) this.socket.write(encodeFrame({ fin: true, opcode: Opcode.Pong, payload }));
        return;
      case Opcode.Pong:
        return;
      case Opcode.Close:
        if (this.closeSent) this.socket.end();
        else {
          this.closeSent = true;
          // echo the peer's status code, as RFC 6455 §5.5.1 asks
          this.socket.end(encodeFrame({ fin: true, opcode: Opcode.Close, payload: payload.subarray(0, 2) }));
        }
        return;
      case Opcode.Text:
      case Opcode.Binary:
        if (this.fragments.length) throw new WebSocketProtocolError(1002, 'new message inside a fragmented one');
        if (fin) return this.messageListener({ binary: opcode === Opcode.Binary, data: payload });
        this.fragmentOpcode = opcode;
        this.fragments = [payload];
        return;
      case Opcode.Continuation: {
        if (!this.fragments.length) throw new WebSocketProtocolError(1002, 'continuation without a message');
        this.fragments.push(payload);
        if (this.fragments.reduce((n, b) => n + b.length, 0) > MAX_MESSAGE) throw new WebSocketProtocolError(1009, 'message too large');
        if (!fin) return;
        const data = Buffer.concat(this.fragments);
        this.fragments = [];
        return this.messageListener({ binary: this.fragmentOpcode === Opcode.Binary, data });
      }
      default:
        throw new WebSocketProtocolError(1002, `unknown opcode ${opcode}`);
    }
  }
}

/**
 * A byte stream carried in binary messages (how kubectl tunnels SPDY over a
 * WebSocket: message boundaries mean nothing).
 */
export function webSocketStream(ws: WebSocketConnection): Duplex {
  const stream = new Duplex({
    read() {
      // data is pushed as it arrives
    },
    write(chunk: Buffer, _enc, cb) {
      ws.send(chunk);
      void ws.drained().then(() => cb());
    },
    final(cb) {
      ws.close(1000);
      cb();
    },
    destroy(err, cb) {
      ws.close(1000);
      cb(err);
    },
  });
  ws.onMessage((m) => {
    if (m.binary) stream.push(m.data);
  });
  void ws.closed.then(() => stream.push(null));
  return stream;
}
