import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WireReader, WireType, wireFields } from './wire-reader.js';
import { WireWriter } from './wire-writer.js';

describe('WireWriter', () => {
  it('writes each wire type so that the reader reads it back', () => {
    const inner = new WireWriter().string(1, 'héllo');
    const bytes = new WireWriter().string(1, 'abc').bool(2, true).int64(3, 300).int64(4, -1).double(5, 1.5).message(6, inner).message(7, new WireWriter()).finish();
    const r = new WireReader(bytes);
    const seen: [number, number][] = [];
    const values: unknown[] = [];
    while (!r.done) {
      const t = r.tag();
      seen.push([t.field, t.wireType]);
      if (t.wireType === WireType.Varint) values.push(r.varint());
      else if (t.wireType === WireType.Fixed64) values.push(Buffer.from(new BigUint64Array([r.fixed64()]).buffer).readDoubleLE());
      else values.push(Buffer.from(r.bytes()));
    }
    assert.deepEqual(seen, [[1, 2], [2, 0], [3, 0], [4, 0], [5, 1], [6, 2], [7, 2]]);
    assert.equal(String(values[0]), 'abc');
    assert.equal(values[1], 1n);
    assert.equal(values[2], 300n);
    assert.equal(values[3], 0xffffffffffffffffn, 'negative int64 is its two’s complement');
    assert.equal(values[4], 1.5);
    assert.equal([...wireFields(values[5] as Buffer)][0]?.data.toString(), 'héllo');
    assert.equal((values[6] as Buffer).length, 0, 'empty messages are still present');
  });

  it('encodes varints in 7-bit groups, low first', () => {
    assert.deepEqual([...new WireWriter().int64(1, 300).finish()], [0x08, 0xac, 0x02]);
    assert.deepEqual([...new WireWriter().string(16, 'a').finish()], [0x82, 0x01, 0x01, 0x61]);
    assert.deepEqual([...new WireWriter().uint(1, 2 ** 40).finish()], [0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
  });

  it('writes zero values unless asked for proto3 implicit presence', () => {
    assert.deepEqual([...new WireWriter().string(1, '').bool(2, false).int64(3, 0).finish()], [0x0a, 0x00, 0x10, 0x00, 0x18, 0x00]);
    assert.equal(new WireWriter({ skipDefaults: true }).string(1, '').bool(2, false).int64(3, 0).double(4, 0).bytes(5, new Uint8Array(0)).finish().length, 0);
    assert.deepEqual([...new WireWriter({ skipDefaults: true }).uint(5, 0, true).finish()], [0x28, 0x00], 'always: a oneof member');
    assert.equal(new WireWriter().string(1, undefined).uint(2, undefined).finish().length, 0);
  });

  it('fork/join nests messages of any size, moving the body when the length takes more than one byte', () => {
    for (const size of [0, 1, 127, 128, 300, 20000]) {
      const w = new WireWriter();
      w.uint(1, 7);
      const outer = w.fork(2);
      const inner = w.fork(3);
      w.string(4, 'x'.repeat(size));
      w.join(inner);
      w.join(outer);
      w.uint(5, 9);
      const expected = new WireWriter()
        .uint(1, 7)
        .message(2, new WireWriter().message(3, new WireWriter().string(4, 'x'.repeat(size))))
        .uint(5, 9)
        .finish();
      assert.deepEqual(w.finish(), expected, `body of ${size} bytes`);
    }
  });

  it('grows its buffer for large values', () => {
    const big = Buffer.alloc(100_000, 1);
    const out = new WireWriter().bytes(1, big).finish();
    assert.ok(big.equals([...wireFields(out)][0]?.data ?? new Uint8Array(0)));
  });
});
