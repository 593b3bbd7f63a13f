import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { firstNodeName, kubectlFor, removeDir, ROOT, startServer, waitFor, type ServerProcess } from './harness.js';

interface Taint {
  key: string;
  effect: string;
  timeAdded?: string;
}
interface NodeJson {
  spec: { taints?: Taint[] };
  status: { conditions: { type: string; status: string; reason?: string }[] };
}
interface PodJson {
  metadata: { name: string; deletionTimestamp?: string; labels: Record<string, string> };
  spec: { nodeName?: string; tolerations?: { key?: string; effect?: string; tolerationSeconds?: number }[] };
  status: { phase: string; conditions?: { type: string; status: string; reason?: string }[] };
}
interface EndpointsJson {
  subsets?: { addresses?: { targetRef?: { name: string } }[]; notReadyAddresses?: { targetRef?: { name: string } }[] }[];
}

// short settings so the test takes seconds: leases renewed every 0.5 s, silent nodes Unknown after 4 s
const LEASE_SECONDS = '2';
let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;
let rootDir: string;
let kubelet: ChildProcess | undefined;
let kubeletLogs = '';

function startNode2(): ChildProcess {
  const p = spawn(process.execPath, [join(ROOT, 'bin/skiff.js'), 'kubelet', '--container-runtime', 'process', '--kubeconfig', server.kubeconfig, '--node-name', 'node-2', '--root-dir', rootDir, '--port', '0', '--health-port', '0', '--node-lease-duration-seconds', LEASE_SECONDS], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info' },
  });
  p.stderr!.on('data', (d: Buffer) => (kubeletLogs += d.toString()));
  return p;
}

async function stopNode2(signal: NodeJS.Signals): Promise<void> {
  const p = kubelet;
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill(signal);
  await exited;
}

function ready(n: NodeJson): string | undefined {
  return n.status.conditions.find((c) => c.type === 'Ready')?.status;
}

before(async () => {
  server = await startServer({ command: 'server', args: ['--node-monitor-grace-period', '4s', '--node-monitor-period', '500ms', '--node-lease-duration-seconds', LEASE_SECONDS] });
  kubectl = kubectlFor(server.kubeconfig);
  rootDir = mkdtempSync(join(tmpdir(), 'skiff-node-2-'));
});

after(async () => {
  // a restarted node-2 kubelet finishes off the pods evicted while it was dead
  if (kubelet && kubelet.exitCode === null && kubelet.signalCode === null) {
    await kubectl?.exec(['delete', 'deployment', 'web', '--wait=false']);
    await kubectl?.exec(['delete', 'pods', '--all', '--wait=true', '--timeout=30s']);
  }
  await stopNode2('SIGTERM');
  await server?.stop();
  if (server) await removeDir(server.dataDir);
  if (rootDir) rmSync(rootDir, { recursive: true, force: true });
});

test('a killed kubelet: its node turns NotReady and tainted, its pods are evicted and replaced elsewhere, Endpoints drop them', async () => {
  const first = await firstNodeName(kubectl);
  kubelet = startNode2();
  await waitFor('node-2 Ready', async () => ready(await kubectl.json<NodeJson>(['get', 'node', 'node-2'])) === 'True', 30_000).catch((err: Error) => assert.fail(`${err.message}\n${kubeletLogs}`));

  // DefaultTolerationSeconds admission gives every new pod five minutes on a lost node
  const plain = await kubectl.json<PodJson>(['run', 'plain', '--image=busybox', '--dry-run=server', '-o', 'json', '--', 'sleep', '1']);
  assert.deepEqual(plain.spec.tolerations?.map((t) => [t.key, t.effect, t.tolerationSeconds]), [
    ['node.kubernetes.io/not-ready', 'NoExecute', 300],
    ['node.kubernetes.io/unreachable', 'NoExecute', 300],
  ]);

  // everything lands on node-2 while the local node is cordoned
  await kubectl.ok(['cordon', first]);
  await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      tolerations:
      - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 2}
      - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 2}
      containers:
      - name: main
        image: busybox
        command: ["sleep", "3600"]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
` });
  const running = async (): Promise<PodJson[]> => (await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web'])).items.filter((p) => p.status.phase === 'Running' && !p.metadata.deletionTimestamp);
  const onNode2 = await waitFor('2 web pods Running on node-2', async () => {
    const pods = await running();
    return pods.length === 2 && pods.every((p) => p.spec.nodeName === 'node-2') ? pods.map((p) => p.metadata.name).sort() : undefined;
  }, 30_000);
  const endpointNames = async (key: 'addresses' | 'notReadyAddresses'): Promise<string[]> => {
    const ep = await kubectl.json<EndpointsJson>(['get', 'endpoints', 'web']);
    return (ep.subsets ?? []).flatMap((s) => s[key] ?? []).map((a) => a.targetRef?.name ?? '').sort();
  };
  await waitFor('Endpoints list the node-2 pods', async () => JSON.stringify(await endpointNames('addresses')) === JSON.stringify(onNode2));
  await kubectl.ok(['uncordon', first]);

  kubelet.kill('SIGKILL');
  const lost = await waitFor('node-2 NotReady', async () => {
    const n = await kubectl.json<NodeJson>(['get', 'node', 'node-2']);
    return ready(n) === 'Unknown' ? n : undefined;
  }, 30_000);
  assert.equal(lost.status.conditions.find((c) => c.type === 'Ready')?.reason, 'NodeStatusUnknown');
  assert.match(await kubectl.ok(['get', 'node', 'node-2']), /node-2\s+NotReady/);
  const tainted = await waitFor('unreachable taints on node-2', async () => {
    const taints = (await kubectl.json<NodeJson>(['get', 'node', 'node-2'])).spec.taints ?? [];
    const keys = taints.filter((t) => t.key === 'node.kubernetes.io/unreachable').map((t) => t.effect).sort();
    return keys.join() === 'NoExecute,NoSchedule' ? taints : undefined;
  }, 20_000);
  assert.ok(tainted.find((t) => t.effect === 'NoExecute')?.timeAdded, 'the NoExecute taint is stamped');

  // after tolerationSeconds the taint eviction controller deletes them; the node is gone, so they stay Terminating
  const evicted = await waitFor('node-2 pods evicted', async () => {
    const pods = (await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web'])).items.filter((p) => onNode2.includes(p.metadata.name));
    return pods.length === 2 && pods.every((p) => p.metadata.deletionTimestamp) ? pods : undefined;
  }, 30_000);
  for (const p of evicted) {
    assert.equal(p.status.conditions?.find((c) => c.type === 'DisruptionTarget')?.reason, 'DeletionByTaintManager');
    assert.equal(p.status.conditions?.find((c) => c.type === 'Ready')?.status, 'False', 'pods of a lost node are not ready');
  }
  const replacements = await waitFor('2 replacements Running on the local node', async () => {
    const pods = await running();
    return pods.length === 2 && pods.every((p) => p.spec.nodeName === first) ? pods.map((p) => p.metadata.name).sort() : undefined;
  }, 30_000);
  await waitFor('Endpoints list only the replacements', async () => {
    const [ready, notReady] = [await endpointNames('addresses'), await endpointNames('notReadyAddresses')];
    return JSON.stringify(ready) === JSON.stringify(replacements) && !notReady.some((n) => onNode2.includes(n));
  });
  const events = await kubectl.ok(['get', 'events', '--field-selector', `involvedObject.name=${onNode2[0]}`]);
  assert.match(events, /TaintManagerEviction\s+pod\/\S+\s+Marking for deletion Pod default\//);

  // node-2 comes back: Ready again, its NoExecute taint removed, the evicted pods finished off
  kubelet = startNode2();
  await waitFor('node-2 Ready and untainted', async () => {
    const n = await kubectl.json<NodeJson>(['get', 'node', 'node-2']);
    return ready(n) === 'True' && !(n.spec.taints ?? []).some((t) => t.key.startsWith('node.kubernetes.io/'));
  }, 30_000);
  await waitFor('the evicted pods gone', async () => {
    const names = (await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web'])).items.map((p) => p.metadata.name);
    return !names.some((n) => onNode2.includes(n));
  }, 30_000);
});
