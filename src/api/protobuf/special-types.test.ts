import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeMessage } from './decode-message.js';
import { ProtobufDecodeError } from './protobuf-decode-error.js';
import { formatGoDuration } from './special-types.js';
import { bytesField, message, varintField } from './wire-writer.test-helper.js';

const decode = (bytes: Uint8Array, type: string): unknown => decodeMessage(bytes, type);

void describe('apimachinery special types', () => {
  void it('Time prints RFC3339 seconds and drops nanos; empty is null', () => {
    assert.equal(decode(message(varintField(1, 1700000000), varintField(2, 5)), 'Time'), '2023-11-14T22:13:20Z');
    assert.equal(decode(message(), 'Time'), null);
    assert.equal(decode(message(varintField(1, 0)), 'Time'), '1970-01-01T00:00:00Z');
  });

  void it('Time outside years 0000-9999 is a decode error', () => {
    assert.throws(() => decode(message(varintField(1, 1n << 62n)), 'Time'), ProtobufDecodeError);
  });

  void it('MicroTime prints microseconds', () => {
    assert.equal(decode(message(varintField(1, 1700000000), varintField(2, 123456789)), 'MicroTime'), '2023-11-14T22:13:20.123456Z');
  });

  void it('IntOrString picks the int or the string by type', () => {
    assert.equal(decode(message(varintField(1, 0), varintField(2, 8080)), 'IntOrString'), 8080);
    assert.equal(decode(message(varintField(1, 1), bytesField(3, '25%')), 'IntOrString'), '25%');
    assert.equal(decode(message(), 'IntOrString'), 0);
  });

  void it('Quantity is its string, zero prints "0"', () => {
    assert.equal(decode(message(bytesField(1, '1Gi')), 'Quantity'), '1Gi');
    assert.equal(decode(message(), 'Quantity'), '0');
  });

  void it('Duration prints like Go', () => {
    assert.equal(decode(message(varintField(1, 3_723_500_000_000n)), 'Duration'), '1h2m3.5s');
    assert.equal(formatGoDuration(0n), '0s');
    assert.equal(formatGoDuration(1_500_000n), '1.5ms');
    assert.equal(formatGoDuration(-90_000_000_000n), '-1m30s');
    assert.equal(formatGoDuration(999n), '999ns');
  });

  void it('FieldsV1 parses the raw JSON field set', () => {
    assert.deepEqual(decode(message(bytesField(1, '{"f:data":{}}')), 'FieldsV1'), { 'f:data': {} });
    assert.throws(() => decode(message(bytesField(1, '{nope')), 'FieldsV1'), ProtobufDecodeError);
  });
});

void describe('Go JSON presence rules', () => {
  void it('pointer scalars print when present even if zero; omitempty scalars do not', () => {
    // DeploymentSpec: replicas *int32 (1), minReadySeconds int32 omitempty (5), paused bool omitempty (7)
    const spec = decode(message(varintField(1, 0), varintField(5, 0), varintField(7, 0)), 'DeploymentSpec') as Record<string, unknown>;
    assert.equal(spec.replicas, 0);
    assert.equal('minReadySeconds' in spec, false);
    assert.equal('paused' in spec, false);
    assert.equal(spec.selector, null); // *LabelSelector without omitempty
    assert.deepEqual(spec.strategy, {}); // structs are never omitted
  });

  void it('packed and unpacked repeated numbers both decode', () => {
    const packed = message(bytesField(4, Buffer.from([0xa0, 0x1f, 0x88, 0x27]))); // 4000, 5000
    const unpacked = message(varintField(4, 4000), varintField(4, 5000));
    assert.deepEqual(decode(packed, 'PodSecurityContext'), { supplementalGroups: [4000, 5000] });
    assert.deepEqual(decode(unpacked, 'PodSecurityContext'), { supplementalGroups: [4000, 5000] });
  });

  void it('a repeated singular message field merges, as protobuf does', () => {
    const meta = message(bytesField(1, message(bytesField(1, 'a'))), bytesField(1, message(bytesField(3, 'ns'))));
    assert.deepEqual(decode(meta, 'ConfigMap'), { metadata: { name: 'a', namespace: 'ns', creationTimestamp: null } });
  });

  void it('a "__proto__" map key stays an ordinary entry', () => {
    const cm = message(bytesField(2, message(bytesField(1, '__proto__'), bytesField(2, 'x'))));
    const data = (decode(cm, 'ConfigMap') as Record<string, unknown>).data as Record<string, unknown>;
    assert.deepEqual(Object.keys(data), ['__proto__']);
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
  });

  void it('map entries without a value get the zero value', () => {
    const cm = message(bytesField(2, message(bytesField(1, 'k'))));
    assert.deepEqual((decode(cm, 'ConfigMap') as Record<string, unknown>).data, { k: '' });
  });
});
