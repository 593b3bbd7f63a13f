import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

interface NodeJson {
  metadata: { name: string; labels: Record<string, string> };
  spec: { taints?: { key: string; effect: string }[] };
  status: { conditions?: { type: string; status: string; reason?: string }[] };
}
interface PodJson {
  metadata: { name: string };
  spec: { nodeName?: string };
  status: { phase?: string; podIP?: string; containerStatuses?: { ready: boolean; started?: boolean }[] };
}
interface List<T> {
  items: T[];
}

const NODES = 50;
const REPLICAS = 200;
let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;

const ready = (n: NodeJson) => n.status.conditions?.find((c) => c.type === 'Ready')?.status;

before(async () => {
  // no real kubelet: every pod must land on a simulated node; short leases so a silent node is noticed in seconds
  server = await startServer({
    args: ['--simulated-nodes', String(NODES), '--disable', 'kubelet,proxy,dns', '--simulated-node-lease-duration-seconds', '2', '--node-monitor-grace-period', '4s', '--node-monitor-period', '500ms'],
  });
  kubectl = kubectlFor(server.kubeconfig);
});

after(async () => {
  await server?.stop();
  if (server) await removeDir(server.dataDir);
});

test('skiff server --simulated-nodes registers Ready nodes spread over three zones', async () => {
  const nodes = await waitFor('50 Ready simulated nodes', async () => {
    const list = await kubectl.json<List<NodeJson>>(['get', 'nodes', '-l', 'node.skiff.dev/simulated=true']);
    return list.items.length === NODES && list.items.every((n) => ready(n) === 'True') ? list.items : undefined;
  }, 60_000);
  assert.equal(new Set(nodes.map((n) => n.metadata.labels['topology.kubernetes.io/zone'])).size, 3);
  const leases = await kubectl.ok(['get', 'leases', '-n', 'kube-node-lease', '-o', 'name']);
  assert.ok(leases.includes('lease.coordination.k8s.io/sim-49'), leases);
});

test('a 200-replica Deployment runs on simulated nodes', async () => {
  await kubectl.ok(['create', 'deployment', 'web', '--image', 'registry.k8s.io/pause:3.9', '--replicas', String(REPLICAS)]);
  const pods = await waitFor(`${REPLICAS} pods Running`, async () => {
    const list = await kubectl.json<List<PodJson>>(['get', 'pods', '-l', 'app=web']);
    const running = list.items.filter((p) => p.status.phase === 'Running' && p.status.containerStatuses?.every((c) => c.ready && c.started));
    return running.length === REPLICAS ? running : undefined;
  }, 120_000);
  assert.ok(pods.every((p) => p.spec.nodeName?.startsWith('sim-')), 'every pod on a simulated node');
  assert.equal(new Set(pods.map((p) => p.status.podIP)).size, REPLICAS, 'every pod has an address of its own');
  await waitFor('the Deployment available', async () => {
    const d = await kubectl.json<{ status: { availableReplicas?: number } }>(['get', 'deployment', 'web']);
    return d.status.availableReplicas === REPLICAS;
  }, 60_000);
});

test('a node whose heartbeats stop goes NotReady through the node lifecycle controller, and recovers', async () => {
  await kubectl.ok(['annotate', 'node', 'sim-7', 'node.skiff.dev/heartbeat=stopped']);
  const silent = await waitFor('sim-7 Ready=Unknown and tainted unreachable', async () => {
    const n = await kubectl.json<NodeJson>(['get', 'node', 'sim-7']);
    return ready(n) === 'Unknown' && n.spec.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable') ? n : undefined;
  }, 60_000);
  assert.equal(silent.status.conditions?.find((c) => c.type === 'Ready')?.reason, 'NodeStatusUnknown');
  await kubectl.ok(['annotate', 'node', 'sim-7', 'node.skiff.dev/heartbeat-']);
  await waitFor('sim-7 Ready again', async () => ready(await kubectl.json<NodeJson>(['get', 'node', 'sim-7'])) === 'True', 60_000);
});
