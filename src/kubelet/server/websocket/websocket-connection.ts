import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, WebSocketServer, type ServerOptions, type WebSocket } from 'ws';

const MAX_MESSAGE = 64 << 20;

/**
 * RFC 6455 itself (frames, masking, fragmentation, ping/pong, the closing
 * handshake, UTF-8 checks, payload limits) is the `ws` package's; what is
 * ours is the subprotocol choice and the Kubernetes channel encodings.
 * One server object serves every upgrade; it tracks no clients.
 */
const chosen = new WeakMap<IncomingMessage, string>();
const server = new WebSocketServer({
  noServer: true,
  clientTracking: false,
  perMessageDeflate: false,
  maxPayload: MAX_MESSAGE,
  // a peer that never answers our close frame is cut off after a short grace
  closeTimeout: 2000,
  handleProtocols: (_offered, req) => chosen.get(req) ?? false,
} as ServerOptions & { closeTimeout: number });

/** Whether an upgrade request asks for a WebSocket. */
export function isWebSocketRequest(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** The client's offered subprotocols, in its order of preference. */
export function offeredProtocols(req: IncomingMessage): string[] {
  const raw = req.headers['sec-websocket-protocol'];
  return (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).split(',').map((p) => p.trim()).filter(Boolean);
}

/**
 * Whether a subprotocol carries channels as base64 text
 * (`base64.channel.k8s.io`, `v4.base64.channel.k8s.io`): each text message
 * is the channel as an ASCII digit followed by the base64 of the data, for
 * clients (browsers) that could not send binary messages.
 */
export function isBase64Protocol(protocol: string): boolean {
  return protocol === 'base64.channel.k8s.io' || protocol.endsWith('.base64.channel.k8s.io');
}

export interface WebSocketMessage {
  binary: boolean;
  data: Buffer;
}

/**
 * One accepted WebSocket, as the streaming handlers use it: whole messages
 * in (`onMessage`, base64 channel messages already decoded to the binary
 * form), whole messages out with back-pressure (`send` + `drained`), and
 * `closed`, which settles once the socket is gone, whoever closed it.
 */
export class WebSocketConnection {
  readonly closed: Promise<void>;
  private readonly base64: boolean;
  private messageListener: (m: WebSocketMessage) => void = () => undefined;

  private constructor(
    private readonly ws: WebSocket,
    private readonly socket: Duplex,
    readonly protocol: string,
  ) {
    this.base64 = isBase64Protocol(protocol);
    this.closed = new Promise((resolve) => ws.once('close', () => resolve()));
    // protocol violations close the connection with the right code; nothing to add
    ws.on('error', () => undefined);
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary || !this.base64) return this.messageListener({ binary: isBinary, data });
      if (data.length === 0) return;
      this.messageListener({ binary: true, data: Buffer.concat([Buffer.from([data[0] - 0x30]), Buffer.from(data.subarray(1).toString(), 'base64')]) });
    });
  }

  /**
   * Completes the handshake, picking the client's first offered protocol
   * that we support; undefined (after a 400) when none fits or the request
   * is not a valid WebSocket handshake.
   */
  static accept(req: IncomingMessage, socket: Duplex, head: Buffer, supported: readonly string[]): Promise<WebSocketConnection | undefined> {
    const offered = offeredProtocols(req);
    const protocol = offered.find((p) => supported.includes(p));
    if (offered.length > 0 && !protocol) {
      const body = `websocket upgrade failed: want one of the protocols ${supported.join(', ')}\n`;
      socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return Promise.resolve(undefined);
    }
    if (protocol) chosen.set(req, protocol);
    return new Promise((resolve) => {
      // ws answers a bad handshake (version, key, method) with a 400 itself and never calls back
      const refused = () => resolve(undefined);
      socket.once('close', refused);
      server.handleUpgrade(req, socket, head, (ws) => {
        socket.off('close', refused);
        resolve(new WebSocketConnection(ws, socket, protocol ?? ''));
      });
    });
  }

  onMessage(listener: (m: WebSocketMessage) => void): void {
    this.messageListener = listener;
  }

  get isOpen(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  /**
   * Sends one message (a channel message is sent as base64 text on the
   * base64 protocols); false when the socket's buffer is full (see `drained`).
   */
  send(data: Buffer, binary = true): boolean {
    if (!this.isOpen) return false;
    if (binary && this.base64 && data.length > 0) this.ws.send(String.fromCharCode(0x30 + data[0]) + data.subarray(1).toString('base64'), { binary: false });
    else this.ws.send(data, { binary });
    return !this.socket.writableNeedDrain;
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
    if (this.ws.readyState === this.ws.CLOSING || this.ws.readyState === this.ws.CLOSED) return;
    this.ws.close(code, reason);
  }

  /**
   * The connection as a byte stream carried in binary messages (how kubectl
   * tunnels SPDY over a WebSocket: message boundaries mean nothing).
   */
  stream(): Duplex {
    return createWebSocketStream(this.ws);
  }
}
