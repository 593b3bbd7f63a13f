import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { test } from 'node:test';
import { acceptKey, WebSocketConnection } from './websocket-connection.js';
import { encodeFrame, FrameParser, Opcode, type WebSocketFrame } from './websocket-frame.js';

test('acceptKey matches the RFC 6455 example', () => {
  assert.equal(acceptKey('dGhlIHNhbXBsZSBub25jZQ=='), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
});

/** A raw client against a server that echoes each message back with a prefix. */
async function withEcho(fn: (sock: Socket, frames: () => Promise<WebSocketFrame>, handshake: Promise<string>) => Promise<void>): Promise<void> {
  const http = createHttpServer();
  http.on('upgrade', (req, socket, head) => {
    const ws = WebSocketConnection.accept(req, socket, head, ['v5.channel.k8s.io', 'v4.channel.k8s.io']);
    ws?.onMessage((m) => ws.send(Buffer.concat([Buffer.from(`${ws.protocol}:`), m.data]), m.binary));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const sock = connect((http.address() as { port: number }).port, '127.0.0.1');
  const parser = new FrameParser({ requireMask: false, maxPayload: 1 << 20 });
  const queue: WebSocketFrame[] = [];
  const waiters: ((f: WebSocketFrame) => void)[] = [];
  let buf = '';
  let upgraded = false;
  const handshake = new Promise<string>((resolve) => {
    sock.on('data', (d: Buffer) => {
      if (!upgraded) {
        buf += d.toString('latin1');
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        upgraded = true;
        resolve(buf.slice(0, end));
        d = Buffer.from(buf.slice(end + 4), 'latin1');
      }
      for (const f of parser.push(d)) {
        const w = waiters.shift();
        if (w) w(f);
        else queue.push(f);
      }
    });
  });
  const next = () => new Promise<WebSocketFrame>((resolve) => {
    const f = queue.shift();
    if (f) resolve(f);
    else waiters.push(resolve);
  });
  sock.write('GET /exec HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: v9.channel.k8s.io, v4.channel.k8s.io, v5.channel.k8s.io\r\n\r\n');
  try {
    await fn(sock, next, handshake);
  } finally {
    sock.destroy();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  }
}

test('handshake picks the client\'s first supported protocol; fragmented messages are reassembled; pings are answered; close is echoed', async () => {
  await withEcho(async (sock, next, handshake) => {
    const head = await handshake;
    assert.match(head, /^HTTP\/1\.1 101/);
    assert.match(head, /Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=/);
    assert.match(head, /Sec-WebSocket-Protocol: v4\.channel\.k8s\.io/);
    const mask = Buffer.from([9, 8, 7, 6]);
    sock.write(encodeFrame({ fin: false, opcode: Opcode.Binary, payload: Buffer.from('ab') }, mask));
    sock.write(encodeFrame({ fin: true, opcode: Opcode.Ping, payload: Buffer.from('p1') }, mask));
    sock.write(encodeFrame({ fin: true, opcode: Opcode.Continuation, payload: Buffer.from('cd') }, mask));
    const pong = await next();
    assert.deepEqual([pong.opcode, pong.payload.toString()], [Opcode.Pong, 'p1']);
    const echo = await next();
    assert.deepEqual([echo.opcode, echo.payload.toString()], [Opcode.Binary, 'v4.channel.k8s.io:abcd']);
    const code = Buffer.alloc(2);
    code.writeUInt16BE(1000);
    sock.write(encodeFrame({ fin: true, opcode: Opcode.Close, payload: code }, mask));
    const close = await next();
    assert.equal(close.opcode, Opcode.Close);
    assert.equal(close.payload.readUInt16BE(0), 1000);
  });
});

test('an upgrade offering no protocol we speak is refused with 400', async () => {
  const srv = createHttpServer();
  srv.on('upgrade', (req, socket, head) => assert.equal(WebSocketConnection.accept(req, socket, head, ['v5.channel.k8s.io']), undefined));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const sock = connect((srv.address() as { port: number }).port, '127.0.0.1');
  let out = '';
  sock.on('data', (d: Buffer) => (out += d.toString()));
  sock.write('GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: a2V5\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: v1.other\r\n\r\n');
  await new Promise((r) => sock.once('close', r));
  assert.match(out, /^HTTP\/1\.1 400/);
  await new Promise((r) => srv.close(r));
});
