import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decode } from './proto-decoder.test-util.js';
import { ProtoWriter } from './protobuf-writer.js';

describe('ProtoWriter', () => {
  it('writes each wire type so that a decoder reads it back', () => {
    const inner = new ProtoWriter().string(1, 'héllo');
    const bytes = new ProtoWriter().string(1, 'abc').bool(2, true).int64(3, 300).int64(4, -1).double(5, 1.5).message(6, inner).message(7, new ProtoWriter()).finish();
    const fields = decode(bytes);
    assert.deepEqual(
      fields.map((f) => [f.no, f.wireType]),
      [[1, 2], [2, 0], [3, 0], [4, 0], [5, 1], [6, 2], [7, 2]],
    );
    assert.equal(Buffer.from(fields[0].bytes!).toString(), 'abc');
    assert.equal(fields[1].varint, 1n);
    assert.equal(fields[2].varint, 300n);
    assert.equal(fields[3].varint, 0xffffffffffffffffn, 'negative int64 is its two’s complement');
    assert.equal(fields[4].fixed64!.readDoubleLE(), 1.5);
    assert.equal(Buffer.from(decode(fields[5].bytes!)[0].bytes!).toString(), 'héllo');
    assert.equal(fields[6].bytes!.length, 0, 'empty messages are still present');
  });

  it('encodes varints in 7-bit groups, low first', () => {
    assert.deepEqual([...new ProtoWriter().int64(1, 300).finish()], [0x08, 0xac, 0x02]);
    assert.deepEqual([...new ProtoWriter().string(16, 'a').finish()], [0x82, 0x01, 0x01, 0x61]);
  });

  it('omits proto3 default values', () => {
    assert.equal(new ProtoWriter().string(1, '').bool(2, false).int64(3, 0).double(4, 0).finish().length, 0);
  });
});
