import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeProtobufObject, PROTOBUF_MAGIC } from './decode-protobuf-object.js';
import { ProtobufDecodeError } from './protobuf-decode-error.js';
import { envelope } from './wire-writer.test-helper.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const bodies = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.pb.b64'))
  .map((f) => Buffer.from(readFileSync(join(FIXTURES, f), 'utf8'), 'base64'));

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Decoding may succeed or throw ProtobufDecodeError, nothing else. Returns whether it threw. */
function decodeOrTypedError(body: Uint8Array): boolean {
  try {
    decodeProtobufObject(body);
    return false;
  } catch (e) {
    if (!(e instanceof ProtobufDecodeError)) {
      assert.fail(`unexpected ${String(e)} for ${Buffer.from(body).toString('base64')}`);
    }
    return true;
  }
}

void describe('protobuf decoding of hostile input', { timeout: 60_000 }, () => {
  void it('every truncation of every fixture is decoded or rejected with ProtobufDecodeError', () => {
    let rejected = 0;
    for (const body of bodies) {
      for (let n = 0; n < body.length; n++) if (decodeOrTypedError(body.subarray(0, n))) rejected++;
    }
    // Cutting an envelope short almost always breaks a length prefix.
    assert.ok(rejected > bodies.length * 10, `only ${rejected} truncations rejected`);
  });

  void it('random bit flips and byte overwrites never escape as other errors', () => {
    const rand = prng(1234);
    for (let i = 0; i < 3000; i++) {
      const body = Buffer.from(bodies[i % bodies.length] as Buffer);
      const edits = 1 + Math.floor(rand() * 4);
      for (let e = 0; e < edits; e++) {
        const at = PROTOBUF_MAGIC.length + Math.floor(rand() * (body.length - PROTOBUF_MAGIC.length));
        body[at] = rand() < 0.5 ? (body[at] as number) ^ (1 << Math.floor(rand() * 8)) : Math.floor(rand() * 256);
      }
      decodeOrTypedError(body);
    }
  });

  void it('random payloads behind a valid envelope and random bodies are handled', () => {
    const rand = prng(99);
    const kinds: [string, string][] = [['v1', 'Pod'], ['apps/v1', 'Deployment'], ['v1', 'Secret'], ['rbac.authorization.k8s.io/v1', 'ClusterRole']];
    for (let i = 0; i < 3000; i++) {
      const raw = Buffer.from(Array.from({ length: Math.floor(rand() * 200) }, () => Math.floor(rand() * 256)));
      const [apiVersion, kind] = kinds[i % kinds.length] as [string, string];
      decodeOrTypedError(envelope(apiVersion, kind, raw));
      decodeOrTypedError(Buffer.concat([PROTOBUF_MAGIC, raw]));
      decodeOrTypedError(raw);
    }
  });

  void it('a huge declared length is rejected without allocating it', () => {
    const body = Buffer.concat([PROTOBUF_MAGIC, Buffer.from([0x12, 0xff, 0xff, 0xff, 0xff, 0x0f])]);
    assert.throws(() => decodeProtobufObject(body), ProtobufDecodeError);
  });

  void it('deeply nested groups are rejected rather than overflowing the stack', () => {
    const open = Buffer.alloc(10_000, 0x0b); // start-group, field 1
    assert.throws(() => decodeProtobufObject(Buffer.concat([PROTOBUF_MAGIC, open])), ProtobufDecodeError);
  });
});
