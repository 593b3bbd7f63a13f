import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { cgroupParent, podCgroupName, PodCgroups, podCpuShares, podQos, podResourceConfig } from './pod-cgroups.js';

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

test('pod caps as upstream\'s ResourceConfigForPod: Guaranteed sums limits; Burstable only where every container declares one; init containers by their largest', () => {
  const lim = (cpu?: string, memory?: string) => ({ limits: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } });
  const g = pod('Guaranteed', [{ name: 'a', resources: lim('500m', '64Mi') }, { name: 'b', resources: lim('250m', '32Mi') }]);
  assert.deepEqual(podResourceConfig(g), { cpuShares: 768, cpuQuotaUs: 75_000, memoryLimitBytes: 96 * 1024 * 1024 });
  // one container without a memory limit: no pod memory cap, the CPU cap stays
  const b = pod('Burstable', [{ name: 'a', resources: lim('500m', '64Mi') }, { name: 'b', resources: lim('1') }]);
  assert.deepEqual(podResourceConfig(b), { cpuShares: 1536, cpuQuotaUs: 150_000 });
  // requests only: the weight, no caps
  assert.deepEqual(podResourceConfig(pod('Burstable', [{ name: 'a', resources: { requests: { cpu: '100m' } } }])), { cpuShares: 102 });
  assert.deepEqual(podResourceConfig(pod('BestEffort')), { cpuShares: 2 });
  // an init container bigger than the sum of the others sets the cap; a tiny CPU limit still gets upstream's 1 ms minimum quota
  const i = pod('Guaranteed', [{ name: 'a', resources: lim('5m', '16Mi') }]);
  i.spec!.initContainers = [{ name: 'init', resources: lim('5m', '128Mi') }];
  assert.deepEqual(podResourceConfig(i), { cpuShares: 5, cpuQuotaUs: 1000, memoryLimitBytes: 128 * 1024 * 1024 });
});

test('cgroup v1 with cgroupfs: the pod cgroup gets the summed memory limit and CPU quota (-1: none)', () => {
  const root = mkdtempSync(join(tmpdir(), 'cg-'));
  try {
    for (const h of ['pids', 'cpu', 'memory']) mkdirSync(join(root, h));
    const cg = new PodCgroups({ driver: 'cgroupfs', version: 1, mountPoint: root });
    cg.ensure(pod('Guaranteed', [{ name: 'a', resources: { limits: { cpu: '200m', memory: '10Mi' } } }, { name: 'b', resources: { limits: { cpu: '300m', memory: '6Mi' } } }]));
    assert.equal(readFileSync(join(root, 'memory/kubepods/pod1234-ab/memory.limit_in_bytes'), 'utf8'), String(16 * 1024 * 1024));
    assert.equal(readFileSync(join(root, 'cpu/kubepods/pod1234-ab/cpu.cfs_quota_us'), 'utf8'), '50000');
    assert.equal(readFileSync(join(root, 'cpu/kubepods/pod1234-ab/cpu.cfs_period_us'), 'utf8'), '100000');
    cg.ensure(pod('BestEffort'));
    assert.equal(readFileSync(join(root, 'memory/kubepods/besteffort/pod1234-ab/memory.limit_in_bytes'), 'utf8'), '-1');
    assert.equal(readFileSync(join(root, 'cpu/kubepods/besteffort/pod1234-ab/cpu.cfs_quota_us'), 'utf8'), '-1');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
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
    for (const h of ['pids', 'cpu', 'memory']) {
      for (const f of ['pids.max', 'cpu.shares', 'cpu.cfs_period_us', 'cpu.cfs_quota_us', 'memory.limit_in_bytes']) rmSync(join(root, h, 'kubepods/burstable/pod1234-ab', f), { force: true });
    }
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
