import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtobufObject } from './decode-protobuf-object.js';
import { encodeProtobufListItem, encodeProtobufListParts, encodeProtobufObject } from './encode-protobuf-object.js';

function pod(name: string, bigEnv = 0) {
  return {
    metadata: { name, namespace: 'ns', resourceVersion: '7', labels: { app: 'a' } },
    spec: { containers: [{ name: 'c', image: 'busybox', env: Array.from({ length: bigEnv }, (_, i) => ({ name: `E${i}`, value: 'x'.repeat(40) })) }] },
  };
}

test('a list assembled from encoded items is byte for byte the list encoded whole', () => {
  // items long enough that their lengths and the list's need multi-byte varints
  for (const items of [[], [pod('a')], [pod('a'), pod('b', 5), pod('c', 400)]]) {
    const metadata = { resourceVersion: '42', continue: items.length > 1 ? 'tok' : undefined };
    const whole = encodeProtobufObject({ apiVersion: 'v1', kind: 'PodList', metadata, items });
    const parts = encodeProtobufListParts('v1', 'PodList', metadata, items.map((item) => encodeProtobufListItem(item, 'Pod')));
    assert.deepEqual(Buffer.concat(parts), whole);
    const decoded = decodeProtobufObject(Buffer.concat(parts)) as { items: { metadata: { name: string } }[] };
    assert.deepEqual(decoded.items.map((i) => i.metadata.name), items.map((i) => i.metadata.name));
  }
});
