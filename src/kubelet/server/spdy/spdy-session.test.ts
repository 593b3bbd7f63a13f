import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Duplex, PassThrough } from 'node:stream';
import { test } from 'node:test';
import { HeaderCodec } from './header-compression.js';
import { SPDY3_DICTIONARY } from './spdy-dictionary.js';
import { decodeHeaderBlock, encodeControl, encodeData, encodeHeaderBlock, FLAG_FIN, FrameType, SpdyFrameParser, u32, type SpdyFrame } from './spdy-frame.js';
import { SpdySession } from './spdy-session.js';

test('the SPDY/3 dictionary is the 1423 bytes of the spec', () => {
  assert.equal(SPDY3_DICTIONARY.length, 1423);
  assert.equal(createHash('sha256').update(SPDY3_DICTIONARY).digest('hex'), '51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02');
});

test('header blocks survive compression across frames sharing one zlib stream', async () => {
  const c = new HeaderCodec('compress');
  const d = new HeaderCodec('decompress');
  try {
    const blocks: Record<string, string>[] = [{ streamType: 'error', port: '80', requestID: '0' }, { streamType: 'data', port: '80', requestID: '0' }, {}];
    for (const h of blocks) {
      const lower = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
      assert.deepEqual(decodeHeaderBlock(await d.process(await c.process(encodeHeaderBlock(h)))), lower);
    }
  } finally {
    c.close();
    d.close();
  }
});

/** Two in-memory sockets wired to each other. */
function socketPair(): [Duplex, Duplex] {
  const aIn = new PassThrough();
  const bIn = new PassThrough();
  const a = Duplex.from({ readable: aIn, writable: bIn });
  const b = Duplex.from({ readable: bIn, writable: aIn });
  return [a, b];
}

test('a session accepts client streams with SYN_REPLY, delivers data and FIN both ways, and echoes PING', async () => {
  const [server, client] = socketPair();
  const session = new SpdySession(server, (s) => {
    assert.equal(s.headers.streamtype, 'data');
    s.on('data', (d: Buffer) => s.write(Buffer.from(d.toString().toUpperCase())));
    s.on('end', () => s.end());
  });
  const parser = new SpdyFrameParser();
  const frames: SpdyFrame[] = [];
  client.on('data', (d: Buffer) => frames.push(...parser.push(d)));
  client.on('error', () => undefined);
  const until = async (n: number) => {
    const deadline = Date.now() + 3000;
    while (frames.length < n) {
      if (Date.now() > deadline) throw new Error(`got ${frames.length} frames, want ${n}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const compress = new HeaderCodec('compress');
  const block = await compress.process(encodeHeaderBlock({ streamType: 'data', port: '80' }));
  client.write(encodeControl(FrameType.SynStream, 0, Buffer.concat([u32(1), u32(0), Buffer.from([0, 0]), block])));
  client.write(encodeData(1, 0, Buffer.from('hello')));
  client.write(encodeData(1, FLAG_FIN, Buffer.alloc(0)));
  client.write(encodeControl(FrameType.Ping, 0, u32(7)));
  await until(4);
  const decompress = new HeaderCodec('decompress');
  const reply = frames.find((f) => f.kind === 'control' && f.type === FrameType.SynReply);
  assert.ok(reply && reply.kind === 'control');
  assert.equal(reply.payload.readUInt32BE(0), 1);
  assert.deepEqual(decodeHeaderBlock(await decompress.process(reply.payload.subarray(4))), {});
  const data = frames.filter((f) => f.kind === 'data');
  assert.equal(Buffer.concat(data.map((f) => (f.kind === 'data' ? f.data : Buffer.alloc(0)))).toString(), 'HELLO');
  assert.ok(data.at(-1)!.flags & FLAG_FIN);
  const ping = frames.find((f) => f.kind === 'control' && f.type === FrameType.Ping);
  assert.ok(ping && ping.kind === 'control' && ping.payload.readUInt32BE(0) === 7);
  // the SYN_REPLY precedes the stream's data
  assert.ok(frames.indexOf(reply) < frames.indexOf(data[0]));
  compress.close();
  decompress.close();
  server.destroy();
  client.destroy();
  await session.closed;
});
