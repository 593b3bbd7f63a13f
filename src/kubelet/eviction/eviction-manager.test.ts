import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { FakeClock } from '../../base/fake-clock.js';
import type { Logger } from '../../machinery/logger.js';
import type { PodStats, Summary } from '../stats/summary.js';
import { EvictionManager, type EvictPodOptions } from './eviction-manager.js';
import { parseThresholdConfig } from './threshold-config.js';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, with: () => quiet };
const Mi = 1024 * 1024;

function pod(name: string, o: { priority?: number; memoryRequest?: string; storageRequest?: string; qos?: string; static?: boolean; tolerations?: Pod['spec'] extends infer S ? S extends { tolerations?: infer T } ? T : never : never } = {}): Pod {
  const requests: Record<string, string> = {};
  if (o.memoryRequest) requests.memory = o.memoryRequest;
  if (o.storageRequest) requests['ephemeral-storage'] = o.storageRequest;
  return {
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...(o.static ? { annotations: { 'kubernetes.io/config.source': 'file' } } : {}) },
    spec: { containers: [{ name: 'c', resources: { requests } }], priority: o.priority, tolerations: o.tolerations },
    status: { phase: 'Running', qosClass: o.qos ?? (Object.keys(requests).length ? 'Burstable' : 'BestEffort') },
  };
}

function podStats(p: Pod, o: { memory?: number; disk?: number; logs?: number }): PodStats {
  return {
    podRef: { name: p.metadata!.name!, namespace: 'ns', uid: p.metadata!.uid! },
    startTime: '2024-01-01T00:00:00Z',
    containers: [{ name: 'c', startTime: '2024-01-01T00:00:00Z', memory: { time: '', workingSetBytes: o.memory ?? 0 }, logs: { time: '', usedBytes: o.logs ?? 4096 } }],
    memory: { time: '', workingSetBytes: o.memory ?? 0 },
    'ephemeral-storage': { time: '', usedBytes: o.disk ?? 0 },
  };
}

/** A node whose figures the test sets; the manager under test reads them through a fake summary. */
function harness(flags: Parameters<typeof parseThresholdConfig>[0], o: { transitionMs?: number } = {}) {
  const clock = new FakeClock();
  const node = { memAvailable: 8000 * Mi, memWorkingSet: 8000 * Mi, fsAvailable: 50 * Mi, fsCapacity: 100 * Mi };
  let pods: { pod: Pod; stats?: PodStats }[] = [];
  const evicted: { pod: Pod; options: EvictPodOptions }[] = [];
  const podEvents: string[] = [];
  const nodeEvents: string[] = [];
  const changes: string[][] = [];
  const manager = new EvictionManager({
    thresholds: parseThresholdConfig(flags),
    pressureTransitionPeriodMs: o.transitionMs ?? 60_000,
    nodeName: 'node-1',
    logger: quiet,
    clock,
    summary: async (): Promise<Summary> => {
      const time = new Date(clock.now()).toISOString();
      return {
        node: {
          nodeName: 'node-1', startTime: time,
          memory: { time, availableBytes: node.memAvailable, workingSetBytes: node.memWorkingSet },
          fs: { time, availableBytes: node.fsAvailable, capacityBytes: node.fsCapacity, inodesFree: 1000, inodes: 1000 },
          runtime: { imageFs: { time, availableBytes: node.fsAvailable, capacityBytes: node.fsCapacity } },
        },
        pods: pods.flatMap((p) => (p.stats ? [p.stats] : [])),
      };
    },
    activePods: () => pods.map((p) => p.pod).filter((p) => !evicted.some((e) => e.pod === p)),
    evictPod: async (p, options) => {
      evicted.push({ pod: p, options });
    },
    recordPodEvent: (p, type, reason, message) => podEvents.push(`${p.metadata?.name} ${type} ${reason} ${message}`),
    recordNodeEvent: (type, reason, message) => nodeEvents.push(`${type} ${reason} ${message}`),
    onConditionsChanged: (c) => changes.push([...c]),
  });
  return { clock, node, manager, evicted, podEvents, nodeEvents, changes, setPods: (p: typeof pods) => (pods = p) };
}

test('disk pressure: DiskPressure, one pod evicted per pass (the one using most above its request), upstream\'s message and event', async () => {
  const h = harness({ hard: 'nodefs.available<10%' });
  const small = pod('small');
  const big = pod('big');
  const requested = pod('requested', { storageRequest: '40Mi' });
  h.setPods([
    { pod: small, stats: podStats(small, { disk: 2 * Mi }) },
    { pod: requested, stats: podStats(requested, { disk: 30 * Mi }) },
    { pod: big, stats: podStats(big, { disk: 20 * Mi, logs: 8192 }) },
  ]);
  assert.deepEqual(await h.manager.synchronize(), []);
  assert.deepEqual(h.manager.pressure(), []);

  h.node.fsAvailable = 5 * Mi;
  await h.clock.advance(10_000);
  const first = await h.manager.synchronize();
  assert.deepEqual(h.manager.pressure(), ['DiskPressure']);
  assert.deepEqual(h.changes, [['DiskPressure']]);
  assert.deepEqual(first.map((p) => p.metadata?.name), ['big'], 'over its request (none) and the largest such consumer; "requested" stays under its request');
  const e = h.evicted[0];
  assert.equal(e.options.gracePeriodSeconds, 1, 'hard thresholds give 1 s');
  assert.equal(e.options.message, 'The node was low on resource: ephemeral-storage. Threshold quantity: 10Mi, available: 5Mi. Container c was using 8Ki, request is 0, has larger consumption of ephemeral-storage. ');
  assert.deepEqual(e.options.condition, { type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message: e.options.message });
  assert.deepEqual(h.podEvents, [`big Warning Evicted ${e.options.message}`]);
  assert.ok(h.nodeEvents.includes('Normal NodeHasDiskPressure Node node-1 status is now: NodeHasDiskPressure'));
  assert.ok(h.nodeEvents.includes('Warning EvictionThresholdMet Attempting to reclaim ephemeral-storage'));

  // still short on the next pass: the next pod goes, one at a time
  await h.clock.advance(1000);
  assert.deepEqual((await h.manager.synchronize()).map((p) => p.metadata?.name), ['small']);
});

test('the pressure condition outlasts the threshold by the transition period, then turns False', async () => {
  const h = harness({ hard: 'nodefs.available<10%' }, { transitionMs: 30_000 });
  h.node.fsAvailable = 1 * Mi;
  await h.manager.synchronize();
  assert.deepEqual(h.manager.pressure(), ['DiskPressure']);
  h.node.fsAvailable = 60 * Mi;
  await h.clock.advance(10_000);
  await h.manager.synchronize();
  assert.deepEqual(h.manager.pressure(), ['DiskPressure'], 'within the transition period');
  await h.clock.advance(20_000);
  await h.manager.synchronize();
  assert.deepEqual(h.manager.pressure(), []);
  assert.deepEqual(h.changes, [['DiskPressure'], []]);
  assert.ok(h.nodeEvents.includes('Normal NodeHasNoDiskPressure Node node-1 status is now: NodeHasNoDiskPressure'));
});

test('memory pressure ranks pods over their request first, then by priority, then by usage above the request', async () => {
  const h = harness({ hard: 'memory.available<100Mi' });
  const overHigh = pod('over-high-prio', { memoryRequest: '10Mi', priority: 1000 });
  const overLow = pod('over-low-prio', { memoryRequest: '10Mi', priority: 0 });
  const under = pod('under', { memoryRequest: '500Mi' });
  const crit = pod('critical', { priority: 2_000_000_000 });
  h.setPods([
    { pod: under, stats: podStats(under, { memory: 400 * Mi }) },
    { pod: overHigh, stats: podStats(overHigh, { memory: 300 * Mi }) },
    { pod: overLow, stats: podStats(overLow, { memory: 20 * Mi }) },
    { pod: crit, stats: podStats(crit, { memory: 900 * Mi }) },
  ]);
  h.node.memAvailable = 50 * Mi;
  const order: string[] = [];
  for (let i = 0; i < 4; i++) {
    order.push(...(await h.manager.synchronize()).map((p) => p.metadata?.name ?? ''));
    await h.clock.advance(1000);
  }
  // the critical pod ranks before "under" (it is over its request) but is never evicted
  assert.deepEqual(order, ['over-low-prio', 'over-high-prio', 'under']);
});

test('critical pods are skipped: the next in rank is evicted; a pod without stats goes first', async () => {
  const h = harness({ hard: 'memory.available<100Mi' });
  const crit = pod('critical', { priority: 2_000_000_000 });
  const st = pod('static', { static: true });
  const low = pod('low', { memoryRequest: '10Mi' });
  const nostats = pod('nostats', { memoryRequest: '10Mi', priority: 5 });
  h.setPods([
    { pod: crit, stats: podStats(crit, { memory: 900 * Mi }) },
    { pod: st, stats: podStats(st, { memory: 800 * Mi }) },
    { pod: low, stats: podStats(low, { memory: 20 * Mi }) },
  ]);
  h.node.memAvailable = 50 * Mi;
  assert.deepEqual((await h.manager.synchronize()).map((p) => p.metadata?.name), ['low']);
  assert.match(h.evicted[0].options.message, /^The node was low on resource: memory\. Threshold quantity: 100Mi, available: 50Mi\. Container c was using 20Mi, request is 10Mi, has larger consumption of memory\. $/);
  h.setPods([{ pod: crit, stats: podStats(crit, { memory: 900 * Mi }) }, { pod: nostats }]);
  await h.clock.advance(1000);
  assert.deepEqual((await h.manager.synchronize()).map((p) => p.metadata?.name), ['nostats']);
});

test('soft thresholds evict only after their grace period, with the max pod grace period', async () => {
  const h = harness({ hard: '', soft: 'memory.available<1Gi', softGracePeriod: 'memory.available=1m' });
  const p = pod('p');
  h.setPods([{ pod: p, stats: podStats(p, { memory: 10 * Mi }) }]);
  h.node.memAvailable = 500 * Mi;
  assert.deepEqual(await h.manager.synchronize(), []);
  assert.deepEqual(h.manager.pressure(), ['MemoryPressure'], 'the condition does not wait for the grace period');
  await h.clock.advance(30_000);
  assert.deepEqual(await h.manager.synchronize(), []);
  await h.clock.advance(30_000);
  assert.deepEqual((await h.manager.synchronize()).map((x) => x.metadata?.name), ['p']);
  assert.equal(h.evicted[0].options.gracePeriodSeconds, 30, 'the pod\'s own grace period when --eviction-max-pod-grace-period is 0');
});

test('admission: MemoryPressure refuses BestEffort pods that do not tolerate it; DiskPressure refuses all but critical pods', async () => {
  const h = harness({ hard: 'memory.available<100Mi,nodefs.available<10%' });
  assert.equal(h.manager.admit(pod('any')), undefined);
  h.node.memAvailable = 50 * Mi;
  await h.manager.synchronize();
  assert.deepEqual(h.manager.admit(pod('be')), { reason: 'Evicted', message: 'The node had condition: [MemoryPressure]. ' });
  assert.equal(h.manager.admit(pod('burstable', { memoryRequest: '1Mi' })), undefined);
  assert.equal(h.manager.admit(pod('tolerant', { tolerations: [{ key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }] })), undefined);
  h.node.fsAvailable = 1 * Mi;
  await h.clock.advance(10_000);
  await h.manager.synchronize();
  assert.deepEqual(h.manager.admit(pod('burstable', { memoryRequest: '1Mi' })), { reason: 'Evicted', message: 'The node had condition: [MemoryPressure DiskPressure]. ' });
  assert.equal(h.manager.admit(pod('critical', { priority: 2_000_000_001 })), undefined);
});

test('local storage limits: an emptyDir over its sizeLimit or a container over its ephemeral-storage limit is evicted without node pressure', async () => {
  const h = harness({ hard: 'nodefs.available<10%' });
  const withDir: Pod = { ...pod('dir'), spec: { containers: [{ name: 'c' }], volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Mi' } }] } };
  const withLimit: Pod = { ...pod('limited'), spec: { containers: [{ name: 'c', resources: { limits: { 'ephemeral-storage': '4Ki' } } }] } };
  h.setPods([
    { pod: withDir, stats: { ...podStats(withDir, { disk: 3 * Mi, logs: 0 }), volume: [{ name: 'scratch', time: '', usedBytes: 2 * Mi }] } },
    { pod: withLimit, stats: podStats(withLimit, { logs: 8192 }) },
  ]);
  assert.deepEqual((await h.manager.synchronize()).map((p) => p.metadata?.name), ['dir', 'limited']);
  assert.deepEqual(h.evicted.map((e) => e.options.message), [
    'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ',
    'Container c exceeded its local ephemeral storage limit "4Ki". ',
  ]);
  assert.deepEqual(h.manager.pressure(), []);
});

test('run() looks every interval and stops on abort', async () => {
  const h = harness({ hard: 'nodefs.available<10%' });
  const stop = new AbortController();
  let passes = 0;
  const original = h.manager.synchronize.bind(h.manager);
  h.manager.synchronize = async () => {
    passes++;
    return original();
  };
  const running = h.manager.run(stop.signal);
  await h.clock.advance(0);
  assert.equal(passes, 1);
  await h.clock.advance(9_000);
  assert.equal(passes, 1);
  await h.clock.advance(1_000);
  assert.equal(passes, 2);
  stop.abort();
  await running;
});
