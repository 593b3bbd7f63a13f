import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allocatable, initialNode, nodeConditions, parseResourceList, parseTaints, statusChanged, nodeStatus, type NodeConfig } from './node-status.js';
import type { MachineInfo } from './machine-info.js';

const info: MachineInfo = {
  cpus: 4, memoryBytes: 8 * 1024 ** 3, memoryAvailableBytes: 4 * 1024 ** 3, fsBytes: 100 * 1024 ** 3, fsAvailableBytes: 50 * 1024 ** 3,
  pidMax: 4_000_000, pidsInUse: 300, kernelVersion: '6.1.0', osImage: 'Debian', architecture: 'amd64', operatingSystem: 'linux',
  machineID: 'm', systemUUID: 'u', bootID: 'b', hostname: 'host1', internalIP: '10.0.0.1',
};
const config: NodeConfig = { nodeName: 'node1', labels: { role: 'x' }, taints: parseTaints('dedicated=gpu:NoSchedule'), reserved: parseResourceList('cpu=500m,memory=1Gi'), maxPods: 110, kubeletPort: 10250, runtimeVersion: 'fake://1' };

test('capacity is measured; allocatable subtracts reservations', () => {
  const n = initialNode(info, config, new Date('2024-01-01T00:00:00Z'));
  assert.deepEqual(n.status?.capacity, { cpu: '4', memory: `${8 * 1024 * 1024}Ki`, 'ephemeral-storage': `${100 * 1024 * 1024}Ki`, pods: '110' });
  assert.equal(n.status?.allocatable?.cpu, '3500m');
  assert.equal(n.status?.allocatable?.memory, '7Gi');
  assert.deepEqual(n.spec?.taints, [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]);
  assert.equal(n.metadata?.labels?.['kubernetes.io/hostname'], 'node1');
  assert.equal(n.metadata?.labels?.role, 'x');
  assert.equal(n.status?.daemonEndpoints?.kubeletEndpoint?.Port, 10250);
  assert.deepEqual(allocatable({ cpu: '1' }, { cpu: '2' }), { cpu: '0' });
});

test('pressure conditions follow the eviction manager and keep transition times while unchanged', () => {
  const first = nodeConditions(config, [], new Date('2024-01-01T00:00:00Z'));
  assert.deepEqual(first.map((c) => [c.type, c.status, c.reason]), [
    ['MemoryPressure', 'False', 'KubeletHasSufficientMemory'],
    ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
    ['PIDPressure', 'False', 'KubeletHasSufficientPID'],
    ['Ready', 'True', 'KubeletReady'],
  ]);
  const later = nodeConditions(config, first, new Date('2024-01-01T00:01:00Z'), new Set(['MemoryPressure']));
  assert.equal(later[0].status, 'True');
  assert.equal(later[0].reason, 'KubeletHasInsufficientMemory');
  assert.equal(later[0].message, 'kubelet has insufficient memory available');
  assert.equal(later[0].lastTransitionTime, '2024-01-01T00:01:00Z');
  assert.equal(later[1].lastTransitionTime, '2024-01-01T00:00:00Z');
});

test('statusChanged ignores heartbeat times only', () => {
  const a = nodeStatus(info, config, undefined, new Date('2024-01-01T00:00:00Z'));
  const b = nodeStatus(info, config, a, new Date('2024-01-01T00:00:10Z'));
  assert.equal(statusChanged(a, b), false);
  assert.equal(statusChanged(a, nodeStatus({ ...info, cpus: 8 }, config, a, new Date('2024-01-01T00:00:20Z'))), true);
});

test('bad reservations and taints are rejected', () => {
  assert.throws(() => parseResourceList('cpu'), RangeError);
  assert.throws(() => parseTaints('novalue'), RangeError);
});
