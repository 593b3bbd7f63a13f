import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

/**
 * `skiff server` with simulated nodes (Node objects with capacity, no
 * kubelet): pods land where resources, selectors, taints and spread say,
 * unschedulable pods explain why, and priority preempts.
 */
let server: ServerProcess;
let k: ReturnType<typeof kubectlFor>;

interface PodJson {
  metadata: { name: string };
  spec: { nodeName?: string };
  status?: { nominatedNodeName?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

function node(name: string, zone: string, cpu: string, extra: { labels?: Record<string, string>; taints?: unknown[] } = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone, ...extra.labels } },
    spec: extra.taints ? { taints: extra.taints } : {},
    status: {
      capacity: { cpu, memory: '8Gi', pods: '110' },
      allocatable: { cpu, memory: '8Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

function pod(name: string, opts: { cpu?: string; labels?: Record<string, string>; spec?: Record<string, unknown> } = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: opts.labels ?? {} },
    spec: {
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'c', image: 'registry.example/app:1', resources: opts.cpu ? { requests: { cpu: opts.cpu } } : {} }],
      ...opts.spec,
    },
  };
}

async function apply(...objs: unknown[]): Promise<void> {
  await k.ok(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs }) });
}

async function getPod(name: string): Promise<PodJson> {
  return k.json<PodJson>(['get', 'pod', name]);
}

async function nodeOf(name: string): Promise<string> {
  return waitFor(`pod ${name} scheduled`, async () => (await getPod(name)).spec.nodeName, 20_000, 100);
}

before(async () => {
  server = await startServer({ command: 'server', args: ['--disable', 'kubelet,controller-manager'] });
  k = kubectlFor(server.kubeconfig);
  await apply(node('n1', 'a', '2'), node('n2', 'b', '2'), node('n3', 'c', '2'));
});

after(async () => {
  await server?.stop();
  if (server) await removeDir(server.dataDir);
});

test('pods spread across the simulated nodes', async () => {
  await apply(...Array.from({ length: 6 }, (_, i) => pod(`spread-${i}`, { cpu: '100m' })));
  const nodes = await Promise.all(Array.from({ length: 6 }, (_, i) => nodeOf(`spread-${i}`)));
  assert.deepEqual(new Set(nodes), new Set(['n1', 'n2', 'n3']), `placement: ${nodes.join(',')}`);
  const events = await k.ok(['get', 'events', '--field-selector', 'involvedObject.name=spread-0,reason=Scheduled', '-o', 'jsonpath={.items[*].message}']);
  assert.match(events, /Successfully assigned default\/spread-0 to n[123]/);
});

test('a pod too big for every node stays Pending with the upstream message, then lands on a new node', async () => {
  await apply(pod('big', { cpu: '3' }));
  const cond = await waitFor('PodScheduled=False', async () => (await getPod('big')).status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False'));
  assert.equal(cond.reason, 'Unschedulable');
  assert.match(cond.message ?? '', /^0\/3 nodes are available: 3 Insufficient cpu\. preemption: 0\/3 nodes are available: 3 Preemption is not helpful for scheduling\.$/);
  const described = await waitFor('FailedScheduling event in describe', async () => {
    const out = await k.ok(['describe', 'pod', 'big']);
    return /FailedScheduling/.test(out) && out;
  });
  assert.match(described, /Warning\s+FailedScheduling\s+.*default-scheduler\s+0\/3 nodes are available: 3 Insufficient cpu\./);
  await apply(node('n4', 'c', '4'));
  assert.equal(await nodeOf('big'), 'n4');
});

test('node selector, required affinity and taints are honoured', async () => {
  await k.ok(['taint', 'node', 'n1', 'dedicated=gpu:NoSchedule']);
  const onlyN1 = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }] } } } };
  await apply(
    pod('selector', { spec: { nodeSelector: { 'topology.kubernetes.io/zone': 'b' } } }),
    pod('untolerated', { spec: onlyN1 }),
    pod('tolerated', { spec: { ...onlyN1, tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] } }),
  );
  assert.equal(await nodeOf('selector'), 'n2');
  assert.equal(await nodeOf('tolerated'), 'n1');
  const cond = await waitFor('untolerated pod rejected', async () => (await getPod('untolerated')).status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False'));
  assert.match(cond.message ?? '', /^0\/4 nodes are available: 1 node\(s\) had untolerated taint \{dedicated: gpu\}, 3 node\(s\) didn't match Pod's node affinity\/selector\./);
  assert.equal((await getPod('untolerated')).spec.nodeName, undefined, server.logs());
});

test('hard topology spread puts one pod per zone', async () => {
  const spec = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'zonal' } } }], tolerations: [{ operator: 'Exists' }] };
  await apply(...Array.from({ length: 3 }, (_, i) => pod(`zonal-${i}`, { labels: { app: 'zonal' }, spec })));
  const zones = await Promise.all(Array.from({ length: 3 }, async (_, i) => ({ n1: 'a', n2: 'b', n3: 'c', n4: 'c' })[await nodeOf(`zonal-${i}`)]));
  assert.deepEqual([...zones].sort(), ['a', 'b', 'c']);
});

test('a high-priority pod preempts a low-priority one', async () => {
  await apply(
    { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'low' }, value: 10 },
    { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 },
    node('small', 'd', '1', { labels: { pool: 'small' } }),
  );
  await apply(pod('victim', { cpu: '800m', spec: { nodeSelector: { pool: 'small' }, priorityClassName: 'low' } }));
  assert.equal(await nodeOf('victim'), 'small');
  await apply(pod('preemptor', { cpu: '800m', spec: { nodeSelector: { pool: 'small' }, priorityClassName: 'high' } }));
  assert.equal(await nodeOf('preemptor'), 'small');
  const gone = await k.exec(['get', 'pod', 'victim']);
  assert.match(gone.stderr, /NotFound/);
});
