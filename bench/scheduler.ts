import { parseArgs } from 'node:util';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { SharedInformerFactory } from '../src/client/cache/shared-informer-factory.js';
import { EventRecorder } from '../src/client/events/event-recorder.js';
import { Client, loadKubeconfig } from '../src/client/rest/index.js';
import { createLogger } from '../src/machinery/logger.js';
import { MetricsRegistry } from '../src/machinery/metrics/registry.js';
import { defaultConfiguration } from '../src/scheduler/config/scheduler-configuration.js';
import { schedulerMetrics } from '../src/scheduler/metrics.js';
import { Scheduler } from '../src/scheduler/scheduler.js';
import { removeDir, startServer } from '../test/e2e/harness.js';
import { fmt, percentile, runConcurrent } from './stats.js';

/**
 * `npm run bench -- scheduler [--nodes 100] [--pods 1000] [--existing 0] [--shape basic|spread|anti-affinity]`:
 * simulated nodes (Node objects only) on a real API server, the scheduler
 * in this process, and pods created as fast as the server takes them. Prints
 * pods scheduled per second and latency percentiles; asserts nothing.
 */
type Shape = 'basic' | 'spread' | 'anti-affinity';

function node(i: number): Node {
  const name = `node-${i}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': `zone-${i % 3}` } },
    status: { capacity: { cpu: '4', memory: '32Gi', pods: '110' }, allocatable: { cpu: '4', memory: '32Gi', pods: '110' } },
  };
}

function pod(name: string, shape: Shape): Pod {
  const labels = { app: 'bench' };
  const spec: Pod['spec'] = { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9', resources: { requests: { cpu: '10m', memory: '10Mi' } } }] };
  if (shape === 'spread') spec.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: labels } }];
  if (shape === 'anti-affinity') spec.affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: labels } }] } };
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels }, spec };
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { nodes: { type: 'string', default: '100' }, pods: { type: 'string', default: '1000' }, existing: { type: 'string', default: '0' }, shape: { type: 'string', default: 'basic' } } });
  const nNodes = Number(values.nodes);
  const nPods = Number(values.pods);
  const nExisting = Number(values.existing);
  const shape = values.shape as Shape;
  const server = await startServer({ command: 'apiserver' });
  const stop = new AbortController();
  try {
    const client = new Client({ ...loadKubeconfig(server.kubeconfig), qps: -1 }, { component: 'bench' });
    const nodes = client.resource<Node>({ group: '', version: 'v1', resource: 'nodes' });
    const pods = client.resource<Pod>({ group: '', version: 'v1', resource: 'pods' }).namespace('default');
    await runConcurrent(nNodes, 16, async (i) => void (await nodes.create(node(i))));
    // Existing pods are already bound: they load the cache but are not measured.
    await runConcurrent(nExisting, 16, async (i) => void (await pods.create({ ...pod(`existing-${i}`, 'basic'), spec: { ...pod('x', 'basic').spec!, nodeName: `node-${i % nNodes}` } })));

    const latencies = { decision: [] as number[], attempt: [] as number[], e2e: [] as number[] };
    let scheduled = 0;
    let allDone!: () => void;
    const done = new Promise<void>((r) => (allDone = r));
    const informers = new SharedInformerFactory(client);
    const recorder = new EventRecorder({ client, component: 'default-scheduler' });
    const scheduler = new Scheduler({
      client,
      informers,
      config: defaultConfiguration(),
      recorder,
      logger: createLogger('scheduler'),
      metrics: schedulerMetrics(new MetricsRegistry()),
      onScheduled: (_p, _n, l) => {
        latencies.decision.push(l.decisionMs);
        latencies.attempt.push(l.attemptMs);
        latencies.e2e.push(l.e2eMs);
        if (++scheduled === nPods) allDone();
      },
    });
    const running = scheduler.run(stop.signal);
    await informers.waitForCacheSync(stop.signal);
    const t0 = performance.now();
    await runConcurrent(nPods, 32, async (i) => void (await pods.create(pod(`measured-${i}`, shape))));
    const createdMs = performance.now() - t0;
    await done;
    const totalMs = performance.now() - t0;
    stop.abort();
    await running;
    await recorder.stop();
    await informers.shutdown();
    client.close();
    const p = (xs: number[], q: number) => fmt(percentile(xs, q), 2);
    process.stdout.write(
      [
        `\nscheduler: ${shape}, ${nNodes} nodes, ${nExisting} existing pods, ${nPods} measured pods`,
        `  pods created/s                  ${fmt((nPods * 1000) / createdMs, 0)}`,
        `  pods scheduled/s                ${fmt((nPods * 1000) / totalMs, 0)}`,
        `  decision latency p50/p99 ms     ${p(latencies.decision, 50)} / ${p(latencies.decision, 99)}`,
        `  attempt (to bound) p50/p99 ms   ${p(latencies.attempt, 50)} / ${p(latencies.attempt, 99)}`,
        `  e2e (queued to bound) p50/p99 ms ${p(latencies.e2e, 50)} / ${p(latencies.e2e, 99)}`,
        '',
      ].join('\n'),
    );
  } finally {
    stop.abort();
    await server.stop();
    await removeDir(server.dataDir);
  }
}
