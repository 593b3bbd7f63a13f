import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { cgroupParent, podCgroupName, PodCgroups, podCpuShares, podQos } from './pod-cgroups.js';

const pod = (qosClass: string | undefined, containers: NonNullable<Pod['spec']>['containers'] = [{ name: 'c' }]): Pod => ({
  metadata: { uid: '1234-ab' }, spec: { containers }, status: qosClass ? { qosClass } : {},
});

test('pod cgroup names follow upstream: Guaranteed under kubepods, the others under their class; systemd slices escape dashes', () => {
  assert.deepEqual(podCgroupName(pod('Guaranteed')), ['kubepods', 'pod1234-ab']);
  assert.deepEqual(podCgroupName(pod('Burstable')), ['kubepods', 'burstable', 'pod1234-ab']);
  assert.equal(cgroupParent(podCgroupName(pod('BestEffort')), 'cgroupfs'), '/kubepods/besteffort/pod1234-ab');
  assert.equal(cgroupParent(podCgroupName(pod('BestEffort')), 'systemd'), 'kubepods-besteffort-pod1234_ab.slice');
  assert.equal(cgroupParent(podCgroupName(pod('Guaranteed')), 'systemd'), 'kubepods-pod1234_ab.slice');
});

test('the QoS class: the API server\'s, else computed as upstream (a static pod)', () => {
  assert.equal(podQos(pod('Burstable')), 'Burstable');
  assert.equal(podQos(pod(undefined)), 'BestEffort');
  assert.equal(podQos(pod(undefined, [{ name: 'c', resources: { limits: { cpu: '1', memory: '1Gi' } } }])), 'Guaranteed');
  assert.equal(podQos(pod(undefined, [{ name: 'c', resources: { requests: { cpu: '1' } } }])), 'Burstable');
});

test('the pod\'s CPU weight sums its containers\' requests (limits where unset), at least 2', () => {
  assert.equal(podCpuShares(pod('BestEffort')), 2);
  assert.equal(podCpuShares(pod('Burstable', [{ name: 'a', resources: { requests: { cpu: '250m' } } }, { name: 'b', resources: { limits: { cpu: '1' } } }])), 1280);
});

test('cgroup v1 with cgroupfs: the kubelet creates the pod cgroup with pids.max and cpu.shares, and removes it again', () => {
  const root = mkdtempSync(join(tmpdir(), 'cg-'));
  try {
    for (const h of ['pids', 'cpu', 'memory']) mkdirSync(join(root, h));
    const cg = new PodCgroups({ driver: 'cgroupfs', version: 1, podMaxPids: 100, mountPoint: root });
    const p = pod('Burstable', [{ name: 'c', resources: { requests: { cpu: '500m' } } }]);
    assert.equal(cg.parentFor(p), '/kubepods/burstable/pod1234-ab');
    cg.ensure(p);
    assert.equal(readFileSync(join(root, 'pids/kubepods/burstable/pod1234-ab/pids.max'), 'utf8'), '100');
    assert.equal(readFileSync(join(root, 'cpu/kubepods/burstable/pod1234-ab/cpu.shares'), 'utf8'), '512');
    // the runtime made the rest; the kubelet removes the pod's cgroup in every hierarchy, never the QoS ones
    mkdirSync(join(root, 'memory/kubepods/burstable/pod1234-ab'), { recursive: true });
    for (const h of ['pids', 'cpu']) for (const f of ['pids.max', 'cpu.shares']) rmSync(join(root, h, 'kubepods/burstable/pod1234-ab', f), { force: true });
    cg.remove('1234-ab');
    for (const h of ['pids', 'cpu', 'memory']) {
      assert.equal(existsSync(join(root, h, 'kubepods/burstable/pod1234-ab')), false, h);
      assert.equal(existsSync(join(root, h, 'kubepods/burstable')), true, h);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('systemd: the limits are written once the runtime has made the slice; unlimited pids is max', () => {
  const root = mkdtempSync(join(tmpdir(), 'cg-'));
  try {
    const cg = new PodCgroups({ driver: 'systemd', version: 2, mountPoint: root });
    const p = pod('BestEffort');
    cg.ensure(p);
    const slice = join(root, 'kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1234_ab.slice');
    assert.equal(existsSync(slice), false, 'nothing is created for systemd');
    mkdirSync(slice, { recursive: true });
    writeFileSync(join(slice, 'pids.max'), '');
    cg.ensure(p);
    assert.equal(readFileSync(join(slice, 'pids.max'), 'utf8'), 'max');
    assert.equal(readFileSync(join(slice, 'cpu.weight'), 'utf8'), '1');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
