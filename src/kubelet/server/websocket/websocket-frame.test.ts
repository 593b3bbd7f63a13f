import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeFrame, FrameParser, Opcode, WebSocketProtocolError } from './websocket-frame.js';

const MASK = Buffer.from([1, 2, 3, 4]);

test('masked frames round-trip at every length encoding, split at any byte', () => {
  for (const len of [0, 1, 125, 126, 65535, 65536]) {
    const payload = Buffer.alloc(len, 'x');
    payload[len - 1] = 7;
    const wire = encodeFrame({ fin: true, opcode: Opcode.Binary, payload }, MASK);
    const parser = new FrameParser({ requireMask: true, maxPayload: 1 << 20 });
    const frames = [...parser.push(wire.subarray(0, 3)), ...parser.push(wire.subarray(3, 11)), ...parser.push(wire.subarray(11))];
    assert.equal(frames.length, 1, `length ${len}`);
    assert.equal(frames[0].opcode, Opcode.Binary);
    assert.ok(frames[0].fin);
    assert.deepEqual(frames[0].payload, payload);
  }
});

test('several frames in one chunk, fragments keep their fin bits', () => {
  const wire = Buffer.concat([
    encodeFrame({ fin: false, opcode: Opcode.Text, payload: Buffer.from('he') }, MASK),
    encodeFrame({ fin: true, opcode: Opcode.Continuation, payload: Buffer.from('llo') }, MASK),
  ]);
  const frames = new FrameParser({ requireMask: true, maxPayload: 100 }).push(wire);
  assert.deepEqual(frames.map((f) => [f.fin, f.opcode, f.payload.toString()]), [[false, Opcode.Text, 'he'], [true, Opcode.Continuation, 'llo']]);
});

test('server frames are unmasked; a server rejects unmasked client frames and bad control frames', () => {
  const wire = encodeFrame({ fin: true, opcode: Opcode.Text, payload: Buffer.from('hi') });
  assert.equal(wire[1] & 0x80, 0);
  assert.throws(() => new FrameParser({ requireMask: true, maxPayload: 100 }).push(wire), (e) => e instanceof WebSocketProtocolError && e.code === 1002);
  const longPing = encodeFrame({ fin: true, opcode: Opcode.Ping, payload: Buffer.alloc(126) }, MASK);
  assert.throws(() => new FrameParser({ requireMask: true, maxPayload: 1000 }).push(longPing), WebSocketProtocolError);
  const big = encodeFrame({ fin: true, opcode: Opcode.Binary, payload: Buffer.alloc(200) }, MASK);
  assert.throws(() => new FrameParser({ requireMask: true, maxPayload: 100 }).push(big), (e) => e instanceof WebSocketProtocolError && e.code === 1009);
});
