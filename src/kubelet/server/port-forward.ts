import type { SpdyStream } from './spdy/spdy-session.js';

/** Connects to a port in the pod's network (the runtime's PortForward). */
export type PortDialer = (port: number) => Promise<NodeJS.ReadWriteStream & { destroy(): void }>;

export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';
/** kubectl ≥ 1.30 tunnels SPDY through a WebSocket under this subprotocol. */
export const PORT_FORWARD_TUNNEL_PROTOCOL = `SPDY/3.1+${PORT_FORWARD_PROTOCOL}`;

interface Pair {
  error?: SpdyStream;
  data?: SpdyStream;
}

/**
 * Serves `portforward.k8s.io` on one SPDY connection: the client opens an
 * error stream and a data stream per forwarded connection, both carrying
 * `port` and `requestID` headers. Once both are in, the data stream is
 * spliced to a fresh connection to the pod's port (each side's FIN
 * half-closes the other); dial or copy failures are written on the error
 * stream, whose FIN tells the client the connection is over.
 */
export class PortForwardHandler {
  private readonly pairs = new Map<string, Pair>();

  constructor(
    private readonly dial: PortDialer,
    private readonly podName: string,
  ) {}

  onStream = (stream: SpdyStream): void => {
    const type = stream.headers.streamtype;
    const requestId = stream.headers.requestid ?? '';
    const port = Number(stream.headers.port);
    if ((type !== 'error' && type !== 'data') || !Number.isInteger(port) || port <= 0 || port > 65535) {
      stream.end();
      stream.resume();
      return;
    }
    const pair = this.pairs.get(requestId) ?? {};
    pair[type] = stream;
    this.pairs.set(requestId, pair);
    if (pair.error && pair.data) {
      this.pairs.delete(requestId);
      void this.forward(port, pair.data, pair.error);
    }
  };

  private async forward(port: number, data: SpdyStream, error: SpdyStream): Promise<void> {
    // the client half-closes the error stream at once; drain it so it can finish
    error.resume();
    let conn: NodeJS.ReadWriteStream & { destroy(): void };
    try {
      conn = await this.dial(port);
    } catch (err) {
      error.end(`error forwarding port ${port} to pod ${this.podName}: ${err instanceof Error ? err.message : String(err)}`);
      data.resume();
      data.end();
      return;
    }
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      if (!error.writableEnded) error.end(`error forwarding port ${port} to pod ${this.podName}: ${err.message}`);
      conn.destroy();
      if (!data.writableEnded) data.end();
    };
    conn.on('error', fail);
    data.on('error', () => conn.destroy());
    data.pipe(conn);
    conn.pipe(data);
    conn.once('close', () => {
      if (!error.writableEnded) error.end();
      if (!data.writableEnded) data.end();
    });
  }
}
