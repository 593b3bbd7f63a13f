import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/object.js';
import { nodeTable } from './nodes.js';

const NOW = new Date('2024-05-01T12:00:00Z');

function node(opts: { labels?: Record<string, string>; ready?: string; unschedulable?: boolean }): KubeObject {
  return {
    metadata: { name: 'n1', creationTimestamp: '2024-04-20T12:00:00Z', labels: opts.labels },
    spec: { unschedulable: opts.unschedulable },
    status: {
      conditions: opts.ready === undefined ? [] : [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: opts.ready }],
      addresses: [{ type: 'Hostname', address: 'n1' }, { type: 'InternalIP', address: '192.168.1.10' }],
      nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian GNU/Linux 12 (bookworm)', kernelVersion: '6.1.0', containerRuntimeVersion: 'skiff://0.1.0' },
    },
  } as KubeObject;
}

void test('node status: Ready, NotReady, Unknown and SchedulingDisabled', () => {
  assert.equal(nodeTable.cells(node({ ready: 'True' }), NOW)[1], 'Ready');
  assert.equal(nodeTable.cells(node({ ready: 'False' }), NOW)[1], 'NotReady');
  assert.equal(nodeTable.cells(node({ ready: 'Unknown' }), NOW)[1], 'NotReady');
  assert.equal(nodeTable.cells(node({}), NOW)[1], 'Unknown');
  assert.equal(nodeTable.cells(node({ ready: 'True', unschedulable: true }), NOW)[1], 'Ready,SchedulingDisabled');
  assert.equal(nodeTable.cells(node({ unschedulable: true }), NOW)[1], 'Unknown,SchedulingDisabled');
});

void test('node roles come from role labels, sorted and de-duplicated', () => {
  assert.equal(nodeTable.cells(node({}), NOW)[2], '<none>');
  const labels = { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'worker', 'node-role.kubernetes.io/': '' };
  assert.equal(nodeTable.cells(node({ labels }), NOW)[2], 'control-plane,worker');
  assert.equal(nodeTable.cells(node({ labels: { 'kubernetes.io/role': '' } }), NOW)[2], '<none>');
});

void test('node cells include version and the wide system info', () => {
  assert.deepEqual(nodeTable.cells(node({ ready: 'True' }), NOW), [
    'n1', 'Ready', '<none>', '11d', 'v1.32.0', '192.168.1.10', '<none>', 'Debian GNU/Linux 12 (bookworm)', '6.1.0', 'skiff://0.1.0',
  ]);
  const bare = { metadata: { name: 'n2' } } as KubeObject;
  assert.deepEqual(nodeTable.cells(bare, NOW), ['n2', 'Unknown', '<none>', '<unknown>', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
  assert.deepEqual(
    nodeTable.columns.filter((c) => c.priority === 1).map((c) => c.name),
    ['Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime'],
  );
});
