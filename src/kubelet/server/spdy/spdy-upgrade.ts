import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** Whether an upgrade request asks for SPDY/3.1 (how kubectl streamed before WebSocket). */
export function isSpdyRequest(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase().startsWith('spdy/3.1');
}

/**
 * Answers a SPDY/3.1 upgrade, choosing the first protocol the client offers in
 * X-Stream-Protocol-Version that we speak; undefined (after a 403, as
 * upstream's negotiation answers) when there is none.
 */
export function acceptSpdy(req: IncomingMessage, socket: Duplex, head: Buffer, supported: readonly string[]): string | undefined {
  const raw = req.headers['x-stream-protocol-version'];
  const offered = (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).split(',').map((s) => s.trim()).filter(Boolean);
  const protocol = offered.find((p) => supported.includes(p));
  if (!protocol) {
    const body = `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server supports [${supported.join(' ')}]`;
    socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    return undefined;
  }
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
  if (head.length) socket.unshift(head);
  return protocol;
}
