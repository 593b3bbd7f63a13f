import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeProtobufObject, isProtobufEnvelope, PROTOBUF_MAGIC } from './decode-protobuf-object.js';
import { ProtobufDecodeError } from './protobuf-decode-error.js';
import { bytesField, envelope, message, varintField } from './wire-writer.test-helper.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** Pairs captured from the real kubectl 1.33 by fixtures/capture-fixtures.ts. */
function fixtures(): { name: string; body: Buffer; want: unknown }[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.pb.b64'))
    .map((f) => {
      const name = f.slice(0, -'.pb.b64'.length);
      return {
        name,
        body: Buffer.from(readFileSync(join(FIXTURES, f), 'utf8'), 'base64'),
        want: JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as unknown,
      };
    });
}

void describe('decodeProtobufObject on real kubectl bodies', () => {
  const all = fixtures();

  void it('has the captured fixtures', () => {
    assert.ok(all.length >= 27, `only ${all.length} fixtures`);
  });

  for (const { name, body, want } of all) {
    void it(`${name} decodes to what kubectl prints as JSON`, () => {
      assert.deepEqual(decodeProtobufObject(body), want);
    });
  }
});

void describe('decodeProtobufObject envelope handling', () => {
  const ns = message(bytesField(1, message(bytesField(1, 'demo'))));

  void it('takes apiVersion and kind from the envelope', () => {
    const obj = decodeProtobufObject(envelope('v1', 'Namespace', ns));
    assert.equal(obj.apiVersion, 'v1');
    assert.equal(obj.kind, 'Namespace');
    assert.deepEqual(obj.metadata, { name: 'demo', creationTimestamp: null });
  });

  void it('decodes <Kind>List with ListMeta and items', () => {
    const list = message(bytesField(1, message(bytesField(2, '42'))), bytesField(2, ns), bytesField(2, ns));
    const obj = decodeProtobufObject(envelope('v1', 'NamespaceList', list));
    assert.deepEqual(obj.metadata, { resourceVersion: '42' });
    assert.equal((obj.items as unknown[]).length, 2);
  });

  void it('skips unknown fields in the envelope and in objects', () => {
    const withJunk = message(varintField(99, 7), bytesField(1, message(bytesField(1, 'demo'), bytesField(500, 'x'))));
    const obj = decodeProtobufObject(envelope('v1', 'Namespace', withJunk));
    assert.equal(obj.metadata?.name, 'demo');
  });

  void it('rejects a body without the magic', () => {
    assert.throws(() => decodeProtobufObject(Buffer.from('{"kind":"Namespace"}')), ProtobufDecodeError);
  });

  void it('rejects kinds it has no schema for as unsupported', () => {
    assert.throws(
      () => decodeProtobufObject(envelope('example.com/v1', 'Widget', ns)),
      (e: unknown) => e instanceof ProtobufDecodeError && e.reason === 'unsupported',
    );
  });

  void it('rejects a compressed payload as unsupported', () => {
    const body = Buffer.concat([envelope('v1', 'Namespace', ns), bytesField(3, 'gzip')]);
    assert.throws(
      () => decodeProtobufObject(body),
      (e: unknown) => e instanceof ProtobufDecodeError && e.reason === 'unsupported',
    );
  });

  void it('rejects a field with the wrong wire type', () => {
    const bad = message(varintField(1, 3)); // metadata must be length-delimited
    assert.throws(() => decodeProtobufObject(envelope('v1', 'Namespace', bad)), ProtobufDecodeError);
  });
});

void describe('isProtobufEnvelope', () => {
  void it('recognises the k8s magic and nothing else', () => {
    assert.equal(isProtobufEnvelope(PROTOBUF_MAGIC), true);
    assert.equal(isProtobufEnvelope(Buffer.from('k8s')), false);
    assert.equal(isProtobufEnvelope(Buffer.from('{"a":1}')), false);
  });
});
