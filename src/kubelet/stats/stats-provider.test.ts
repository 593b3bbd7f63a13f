import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ContainerStats } from '../runtime/runtime.js';
import { parseMeminfo, parseProcStatTotals } from './node-usage.js';
import { parseProcStat } from '../runtime/process/process-usage.js';
import { StatsProvider } from './stats-provider.js';
import { renderResourceMetrics } from './resource-metrics.js';

const pod = (uid: string, name: string): Pod => ({
  metadata: { uid, name, namespace: 'ns' },
  status: { startTime: '2026-01-01T00:00:00Z', containerStatuses: [{ name: 'a', image: '', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: '2026-01-01T00:00:01Z' } } }] },
});

function provider(samples: ContainerStats[][], fail = false) {
  let i = 0;
  let nodeCpu = 0;
  return new StatsProvider({
    nodeName: 'n1',
    pods: () => [pod('u1', 'p1'), pod('u2', 'p2')],
    runtime: { listContainerStats: async () => { if (fail) throw new Error('runtime down'); return samples[Math.min(i++, samples.length - 1)]; } },
    nodeUsage: async () => ({ usageCoreNanoSeconds: (nodeCpu += 1e9), bootTime: new Date(0), memory: { workingSetBytes: 100, availableBytes: 50, usageBytes: 120 } }),
  });
}

test('StatsProvider: rates come from the previous sample; pods sum their containers; unknown pods are left out', async () => {
  const t0 = new Date('2026-01-01T00:01:00Z');
  const t1 = new Date('2026-01-01T00:01:10Z');
  const c = (id: string, podUid: string, name: string, at: Date, cpu: number, mem: number): ContainerStats => ({ id, podUid, name, timestamp: at, usageCoreNanoSeconds: cpu, workingSetBytes: mem });
  const p = provider([
    [c('c1', 'u1', 'a', t0, 1e9, 10), c('c2', 'u1', 'b', t0, 0, 20), c('c3', 'gone', 'x', t0, 5, 5)],
    // 10 s later: c1 used 5 s of CPU (half a core), c2 1 s (a tenth)
    [c('c1', 'u1', 'a', t1, 6e9, 11), c('c2', 'u1', 'b', t1, 1e9, 20)],
  ]);
  const first = await p.summary();
  assert.equal(first.pods.length, 1);
  assert.equal(first.pods[0].containers[0].cpu?.usageNanoCores, undefined, 'no rate from one sample');
  const second = await p.summary();
  const [a, b] = second.pods[0].containers;
  assert.equal(a.cpu?.usageNanoCores, 500_000_000);
  assert.equal(b.cpu?.usageNanoCores, 100_000_000);
  assert.equal(a.startTime, '2026-01-01T00:00:01Z');
  assert.equal(second.pods[0].cpu?.usageNanoCores, 600_000_000);
  assert.equal(second.pods[0].cpu?.usageCoreNanoSeconds, 7e9);
  assert.equal(second.pods[0].memory?.workingSetBytes, 31);
  assert.equal(second.node.memory?.workingSetBytes, 100);
  assert.equal(second.node.nodeName, 'n1');

  const text = renderResourceMetrics(second, false);
  assert.match(text, /^# TYPE container_cpu_usage_seconds_total counter$/m);
  assert.match(text, /^container_cpu_usage_seconds_total\{container="a",namespace="ns",pod="p1"\} 6 1767225670000$/m);
  assert.match(text, /^pod_memory_working_set_bytes\{namespace="ns",pod="p1"\} 31 /m);
  assert.match(text, /^node_cpu_usage_seconds_total 2 \d+$/m);
  assert.match(text, /^node_memory_working_set_bytes 100 \d+$/m);
  assert.match(text, /^scrape_error 0$/m);
});

test('StatsProvider: a runtime that cannot be read leaves the node figures and sets scrape_error', async () => {
  const { summary, scrapeError } = await provider([], true).collect();
  assert.equal(scrapeError, true);
  assert.deepEqual(summary.pods, []);
  assert.match(renderResourceMetrics(summary, scrapeError), /^scrape_error 1$/m);
});

test('/proc parsers: busy CPU leaves out idle and iowait; the working set leaves out inactive file pages; stat fields after the name', () => {
  const stat = 'cpu  100 10 50 1000 20 5 5 10 0 0\ncpu0 1 2 3 4\nbtime 1700000000\n';
  const totals = parseProcStatTotals(stat);
  assert.equal(totals.busyNanoSeconds, 180 * 1e7);
  assert.equal(totals.bootTime.getTime(), 1700000000 * 1000);
  const mem = parseMeminfo('MemTotal:       1000 kB\nMemFree:         200 kB\nMemAvailable:    600 kB\nInactive(file):  300 kB\n');
  assert.deepEqual(mem, { usageBytes: 800 * 1024, workingSetBytes: 500 * 1024, availableBytes: 600 * 1024 });
  const line = '4242 (sh -c (x)) R 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 7 3 20 0 1 0 12345 1000000 300 18446744073709551615';
  assert.deepEqual(parseProcStat(line), { pgrp: 4242, cpuTicks: 310, rssPages: 300 });
  assert.equal(parseProcStat('1 (z) Z 1 1 1'), undefined);
});

test('StatsProvider with fs: nodefs, imagefs and rlimit for the node; local volumes, logs and ephemeral-storage for each pod', async () => {
  const root = await mkdtemp(join(tmpdir(), 'skiff-stats-'));
  try {
    const p: Pod = { ...pod('u1', 'p1'), spec: { containers: [{ name: 'a' }], volumes: [{ name: 'scratch', emptyDir: {} }, { name: 'shm', emptyDir: { medium: 'Memory' } }, { name: 'host', hostPath: { path: '/tmp' } }] } };
    const scratch = join(root, 'pods', 'u1', 'volumes', 'kubernetes.io~empty-dir', 'scratch');
    await mkdir(scratch, { recursive: true });
    await writeFile(join(scratch, 'data'), Buffer.alloc(64 * 1024, 1));
    const logs = join(root, 'pod-logs', 'ns_p1_u1', 'a');
    await mkdir(logs, { recursive: true });
    await writeFile(join(logs, '0.log'), 'hello\n');
    const stats = new StatsProvider({
      nodeName: 'n1', rootDir: root, pods: () => [p],
      runtime: { listContainerStats: async () => [{ id: 'c1', podUid: 'u1', name: 'a', timestamp: new Date(), workingSetBytes: 1 }] },
      nodeUsage: async () => ({ usageCoreNanoSeconds: 1, bootTime: new Date(0), memory: { workingSetBytes: 100, availableBytes: 50, usageBytes: 120 } }),
      rlimit: async () => ({ maxpid: 32768, curproc: 300 }),
    });
    const { summary } = await stats.collect({ fs: true });
    assert.ok((summary.node.fs?.capacityBytes ?? 0) > 0);
    assert.deepEqual(summary.node.runtime?.imageFs, summary.node.fs, 'the process runtime keeps no images: imagefs is nodefs');
    assert.deepEqual({ maxpid: summary.node.rlimit?.maxpid, curproc: summary.node.rlimit?.curproc }, { maxpid: 32768, curproc: 300 });
    const ps = summary.pods[0];
    assert.deepEqual(ps.volume?.map((v) => v.name), ['scratch'], 'memory-backed and host volumes are not the pod\'s disk');
    assert.ok((ps.volume?.[0].usedBytes ?? 0) >= 64 * 1024);
    assert.ok((ps.containers[0].logs?.usedBytes ?? 0) > 0);
    assert.equal(ps['ephemeral-storage']?.usedBytes, (ps.volume?.[0].usedBytes ?? 0) + (ps.containers[0].logs?.usedBytes ?? 0));
    const plain = await stats.collect();
    assert.equal(plain.summary.node.fs, undefined, 'no directory walks without fs');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
