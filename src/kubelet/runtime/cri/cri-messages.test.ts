import assert from 'node:assert/strict';
import { test } from 'node:test';
import { criCodec } from './cri-messages.js';

test('fields are encoded with the published CRI field numbers', () => {
  // VersionRequest.version = 1 (length-delimited): tag 0x0a
  assert.deepEqual(criCodec('VersionRequest').encode({ version: 'v1' }), Buffer.from([0x0a, 0x02, 0x76, 0x31]));
  // StopContainerRequest.timeout = 2 (varint): tag 0x10
  assert.deepEqual(criCodec('StopContainerRequest').encode({ containerId: 'c', timeout: 30 }), Buffer.from([0x0a, 0x01, 0x63, 0x10, 30]));
  // ContainerConfig.log_path = 11: tag (11 << 3) | 2 = 0x5a
  assert.deepEqual(criCodec('ContainerConfig').encode({ logPath: 'x' }), Buffer.from([0x5a, 0x01, 0x78]));
});

test('decoding fills defaults, turns int64 into numbers and maps into objects', () => {
  const codec = criCodec('ContainerStatus');
  const bytes = codec.encode({ id: 'abc', state: 2, finishedAt: 1_700_000_000_000_000_000, exitCode: 137, reason: 'OOMKilled', labels: { a: 'b' } });
  const s = codec.decode(bytes);
  assert.equal(s.id, 'abc');
  assert.equal(s.state, 2);
  assert.equal(typeof s.finishedAt, 'number');
  assert.equal(Math.round((s.finishedAt as number) / 1e9), 1_700_000_000);
  assert.equal(s.exitCode, 137);
  assert.deepEqual(s.labels, { a: 'b' });
  assert.equal(s.startedAt, 0);
  assert.deepEqual(s.mounts, []);
});

test('fields a newer runtime adds are skipped', () => {
  // VersionResponse with an extra field 9 (string "x") the codec does not know
  const bytes = Buffer.concat([criCodec('VersionResponse').encode({ runtimeName: 'containerd' }), Buffer.from([0x4a, 0x01, 0x78])]);
  assert.equal(criCodec('VersionResponse').decode(bytes).runtimeName, 'containerd');
});

test('ListContainerStatsResponse: wrapped uint64 figures decode as numbers; absent ones are null', () => {
  const codec = criCodec('ListContainerStatsResponse');
  const bytes = codec.encode({
    stats: [{
      attributes: { id: 'c1', metadata: { name: 'app' }, labels: { 'io.kubernetes.pod.uid': 'u1' } },
      cpu: { timestamp: 1_700_000_000_000_000_000, usageCoreNanoSeconds: { value: 12_345_678_901 } },
      memory: { timestamp: 1_700_000_000_000_000_000, workingSetBytes: { value: 4_194_304 } },
    }],
  });
  const [s] = codec.decode(bytes).stats as Record<string, Record<string, unknown>>[];
  assert.equal(s.attributes.id, 'c1');
  assert.deepEqual(s.cpu.usageCoreNanoSeconds, { value: 12_345_678_901 });
  assert.equal(s.cpu.usageNanoCores, null);
  assert.deepEqual(s.memory.workingSetBytes, { value: 4_194_304 });
});

test('the relist\'s narrow ListContainers answer reads only each container\'s id and state from the full message', () => {
  const full = criCodec('ListContainersResponse').encode({
    containers: [
      { id: 'c1', podSandboxId: 's1', metadata: { name: 'app', attempt: 1 }, image: { image: 'busybox' }, state: 1, createdAt: 1_700_000_000_000_000_000, labels: { a: 'b' }, annotations: { c: 'd' } },
      { id: 'c2', state: 2 },
    ],
  });
  assert.deepEqual(criCodec('ListContainerStatesResponse').decode(full), { containers: [{ id: 'c1', state: 1 }, { id: 'c2', state: 2 }] });
});
