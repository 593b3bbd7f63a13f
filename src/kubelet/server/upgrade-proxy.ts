import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';

/** Headers that describe the client's connection to us, not the one we open. */
const DROPPED = new Set(['host', 'authorization', 'content-length', 'transfer-encoding']);

/**
 * Replays an upgrade request (WebSocket or SPDY) to `target`, a runtime's
 * streaming URL (CRI Exec/Attach answer with one), and splices the two
 * connections, as upstream's kubelet proxies to the CRI streaming server:
 * the protocol negotiation and the streams are the runtime's.
 */
export function proxyUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: string): Promise<void> {
  const url = new URL(target);
  if (url.protocol !== 'http:') throw new Error(`unsupported streaming URL ${target}`);
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (!DROPPED.has(req.rawHeaders[i]!.toLowerCase())) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  }
  return new Promise((resolve) => {
    const upstream = net.connect(Number(url.port || 80), url.hostname);
    const done = () => {
      upstream.destroy();
      socket.destroy();
      resolve();
    };
    upstream.once('connect', () => {
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.once('error', () => {
      if (!socket.destroyed && upstream.bytesRead === 0) socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      done();
    });
    upstream.once('close', done);
    socket.once('close', done);
    socket.once('error', done);
  });
}
