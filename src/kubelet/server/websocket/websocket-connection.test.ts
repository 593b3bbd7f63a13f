import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { createServer as createHttpServer, type Server } from 'node:http';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { WebSocketConnection } from './websocket-connection.js';

/** A server whose connections echo each message back prefixed with the chosen protocol. */
async function echoServer(supported: readonly string[]): Promise<{ url: string; server: Server; accepted: Promise<WebSocketConnection | undefined> }> {
  const server = createHttpServer();
  let settle!: (c: WebSocketConnection | undefined) => void;
  const accepted = new Promise<WebSocketConnection | undefined>((r) => (settle = r));
  server.on('upgrade', (req, socket, head) => {
    void WebSocketConnection.accept(req, socket, head, supported).then((ws) => {
      ws?.onMessage((m) => ws.send(Buffer.concat([Buffer.from([m.data[0]]), Buffer.from(`${ws.protocol}:`), m.data.subarray(1)]), m.binary));
      settle(ws);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `ws://127.0.0.1:${(server.address() as { port: number }).port}/exec`, server, accepted };
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

function nextMessage(ws: WebSocket): Promise<{ data: Buffer; binary: boolean }> {
  return new Promise((resolve) => ws.once('message', (data: Buffer, binary: boolean) => resolve({ data, binary })));
}

test('the handshake picks the client\'s first supported protocol; fragmented messages arrive whole; close is answered', async () => {
  const { url, server, accepted } = await echoServer(['v5.channel.k8s.io', 'v4.channel.k8s.io']);
  try {
    const client = new WebSocket(url, ['v9.channel.k8s.io', 'v4.channel.k8s.io', 'v5.channel.k8s.io']);
    await once(client, 'open');
    assert.equal(client.protocol, 'v4.channel.k8s.io');
    const conn = await accepted;
    assert.equal(conn?.protocol, 'v4.channel.k8s.io');
    const reply = nextMessage(client);
    client.send(Buffer.from([1, 0x61, 0x62]), { binary: true, fin: false });
    client.ping('p1');
    client.send(Buffer.from('cd'), { binary: true, fin: true });
    const echo = await reply;
    assert.equal(echo.binary, true);
    assert.deepEqual([echo.data[0], echo.data.subarray(1).toString()], [1, 'v4.channel.k8s.io:abcd']);
    const closed = once(client, 'close');
    client.close(1000);
    assert.equal(((await closed) as [number])[0], 1000);
    await conn!.closed;
  } finally {
    await closeServer(server);
  }
});

test('base64 channel protocols: text messages are decoded to channel + bytes, replies are encoded back', async () => {
  const { url, server, accepted } = await echoServer(['v4.base64.channel.k8s.io']);
  try {
    const client = new WebSocket(url, ['v4.base64.channel.k8s.io']);
    await once(client, 'open');
    const conn = await accepted;
    const reply = nextMessage(client);
    client.send(`0${Buffer.from('hi there').toString('base64')}`);
    const echo = await reply;
    assert.equal(echo.binary, false);
    const text = echo.data.toString();
    assert.equal(text[0], '0');
    assert.equal(Buffer.from(text.slice(1), 'base64').toString(), 'v4.base64.channel.k8s.io:hi there');
    client.close();
    await conn!.closed;
  } finally {
    await closeServer(server);
  }
});

test('the server closing ends the client\'s stream with the code given', async () => {
  const { url, server, accepted } = await echoServer(['v5.channel.k8s.io']);
  try {
    const client = new WebSocket(url, ['v5.channel.k8s.io']);
    await once(client, 'open');
    const conn = (await accepted)!;
    const closed = once(client, 'close');
    conn.close(1000);
    assert.equal(conn.isOpen, false);
    assert.equal(((await closed) as [number])[0], 1000);
    await conn.closed;
  } finally {
    await closeServer(server);
  }
});

test('an upgrade offering no protocol we speak, or a bad handshake, is refused with 400', async () => {
  const { server, accepted } = await echoServer(['v5.channel.k8s.io']);
  const port = (server.address() as { port: number }).port;
  const raw = async (request: string): Promise<string> => {
    const sock = connect(port, '127.0.0.1');
    let out = '';
    sock.on('data', (d: Buffer) => (out += d.toString()));
    sock.write(request);
    await once(sock, 'close');
    return out;
  };
  try {
    const wrongProtocol = await raw('GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: v1.other\r\n\r\n');
    assert.match(wrongProtocol, /^HTTP\/1\.1 400/);
    assert.match(wrongProtocol, /v5\.channel\.k8s\.io/);
    assert.equal(await accepted, undefined);
    const badVersion = await raw('GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 7\r\n\r\n');
    assert.match(badVersion, /^HTTP\/1\.1 400/);
  } finally {
    await closeServer(server);
  }
});
