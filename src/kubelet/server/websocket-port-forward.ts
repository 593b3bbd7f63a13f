import type { PortDialer } from './port-forward.js';
import { encodeChannel, V4, V4_BASE64 } from './stream-channel.js';
import type { WebSocketConnection } from './websocket/websocket-connection.js';

/** Subprotocols of port-forward over plain WebSocket channels (none offered means binary v4 too, as upstream). */
export const WEBSOCKET_PORT_FORWARD_PROTOCOLS: readonly string[] = [V4, V4_BASE64];

/**
 * The kubelet's `port` query of a WebSocket port-forward: repeated and
 * comma-separated, each in 1…65535; upstream's messages for what is not.
 */
export function parseForwardPorts(q: URLSearchParams): number[] | { error: string } {
  const values = q.getAll('port');
  if (values.length === 0) return { error: 'query parameter "port" is required' };
  const ports: number[] = [];
  for (const value of values) {
    if (value === '') return { error: 'query parameter "port" cannot be empty' };
    for (const p of value.split(',')) {
      if (!/^\d+$/.test(p) || Number(p) > 65535) return { error: `unable to parse "${value}" as a port: strconv.ParseUint: parsing "${p}": ${/^\d+$/.test(p) ? 'value out of range' : 'invalid syntax'}` };
      if (Number(p) < 1) return { error: `port "${value}" must be > 0` };
      ports.push(Number(p));
    }
  }
  return ports;
}

/**
 * Port-forward over WebSocket channels (`v4.channel.k8s.io`, what the Python
 * client and other non-Go clients speak): port i has data channel 2i and
 * error channel 2i+1, each opened by the 2-byte little-endian port number.
 * Each port is one connection into the pod; dial failures are written on its
 * error channel; the session ends when every port's connection has.
 */
export async function serveWebSocketPortForward(ws: WebSocketConnection, ports: readonly number[], dial: PortDialer, podName: string): Promise<void> {
  type Conn = NodeJS.ReadWriteStream & { destroy(): void };
  const conns: (Conn | undefined)[] = [];
  const pending: Buffer[][] = ports.map(() => []);
  for (const [i, port] of ports.entries()) {
    const portBytes = Buffer.alloc(2);
    portBytes.writeUInt16LE(port);
    ws.send(encodeChannel(2 * i, portBytes));
    ws.send(encodeChannel(2 * i + 1, portBytes));
  }
  ws.onMessage((m) => {
    if (m.data.length === 0 || m.data[0] % 2 !== 0) return;
    const i = m.data[0] / 2;
    if (i >= ports.length) return;
    const data = m.data.subarray(1);
    if (!data.length) return;
    const conn = conns[i];
    if (conn) conn.write(data);
    else pending[i].push(Buffer.from(data));
  });
  const forward = async (i: number, port: number): Promise<void> => {
    let conn: Conn;
    try {
      conn = await dial(port);
    } catch (err) {
      ws.send(encodeChannel(2 * i + 1, `error forwarding port ${port} to pod ${podName}: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    conns[i] = conn;
    for (const b of pending[i]) conn.write(b);
    pending[i] = [];
    conn.on('data', (d: Buffer) => ws.send(encodeChannel(2 * i, d)));
    await new Promise<void>((resolve) => {
      conn.once('end', resolve);
      conn.once('close', resolve);
      conn.once('error', (err: Error) => {
        ws.send(encodeChannel(2 * i + 1, `error forwarding port ${port} to pod ${podName}: ${err.message}`));
        resolve();
      });
      void ws.closed.then(resolve);
    });
    conn.destroy();
  };
  await Promise.all(ports.map((port, i) => forward(i, port)));
  await ws.drained();
  ws.close(1000);
  await ws.closed;
}
