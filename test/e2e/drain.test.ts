import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { firstNodeName, kubectlFor, removeDir, ROOT, startServer, waitFor, type ServerProcess } from './harness.js';

interface PodJson {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { phase: string };
}
interface PdbJson {
  metadata: { generation: number };
  status?: {
    observedGeneration?: number;
    currentHealthy: number;
    desiredHealthy: number;
    disruptionsAllowed: number;
    expectedPods: number;
    conditions?: { type: string; status: string; reason: string }[];
  };
}

let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;
let rootDir: string;
let node2: ChildProcess | undefined;
let node2Logs = '';

before(async () => {
  server = await startServer({ command: 'server' });
  kubectl = kubectlFor(server.kubeconfig);
  rootDir = mkdtempSync(join(tmpdir(), 'skiff-drain-'));
});

after(async () => {
  await kubectl?.exec(['delete', 'deployment', 'web', '--wait=false']);
  await kubectl?.exec(['delete', 'pods', '--all', '--wait=true', '--timeout=30s']);
  if (node2 && node2.exitCode === null && node2.signalCode === null) {
    const exited = new Promise((r) => node2!.once('exit', r));
    node2.kill('SIGTERM');
    await exited;
  }
  await server?.stop();
  if (server) await removeDir(server.dataDir);
  if (rootDir) rmSync(rootDir, { recursive: true, force: true });
});

test('kubectl drain evicts within the PodDisruptionBudget, one pod at a time, and the rest reschedule', async () => {
  const first = await firstNodeName(kubectl);
  node2 = spawn(process.execPath, [join(ROOT, 'bin/skiff.js'), 'kubelet', '--container-runtime', 'process', '--kubeconfig', server.kubeconfig, '--node-name', 'node-2', '--root-dir', rootDir, '--port', '0', '--health-port', '0'], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info' },
  });
  node2.stderr!.on('data', (d: Buffer) => (node2Logs += d.toString()));
  await waitFor('node-2 Ready', async () => /node-2\s+Ready/.test(await kubectl.ok(['get', 'nodes'])), 30_000).catch((err: Error) => assert.fail(`${err.message}\n${node2Logs}`));

  await kubectl.ok(['cordon', first]);
  await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - {name: main, image: busybox, command: ["sleep", "3600"]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 3
  selector: {matchLabels: {app: web}}
` });
  const running = async (): Promise<PodJson[]> => (await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web'])).items.filter((p) => p.status.phase === 'Running' && !p.metadata.deletionTimestamp);
  const pods = await waitFor('3 pods Running on node-2', async () => {
    const list = await running();
    return list.length === 3 && list.every((p) => p.spec.nodeName === 'node-2') ? list : undefined;
  }, 30_000).catch(async (err: Error) => assert.fail(`${err.message}\n${await kubectl.ok(['get', 'pods', '-o', 'wide'])}\n${await kubectl.ok(['describe', 'pods'])}\n${node2Logs.slice(-3000)}`));
  await kubectl.ok(['uncordon', first]);

  const budget = async (allowed: number): Promise<PdbJson> =>
    waitFor(`the budget to allow ${allowed}`, async () => {
      const pdb = await kubectl.json<PdbJson>(['get', 'pdb', 'web']);
      return pdb.status?.observedGeneration === pdb.metadata.generation && pdb.status.currentHealthy === 3 && pdb.status.disruptionsAllowed === allowed ? pdb : undefined;
    });
  const full = await budget(0);
  assert.deepEqual([full.status!.desiredHealthy, full.status!.expectedPods], [3, 3]);
  assert.deepEqual(full.status!.conditions?.map((c) => [c.type, c.status, c.reason]), [['DisruptionAllowed', 'False', 'InsufficientPods']]);

  // the eviction API refuses with 429 and upstream's message while the budget has nothing to spare
  const eviction = JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pods[0].metadata.name, namespace: 'default' } });
  const refused = await kubectl.fails(['create', '--raw', `/api/v1/namespaces/default/pods/${pods[0].metadata.name}/eviction`, '-f', '-'], { input: eviction });
  assert.match(refused, /Cannot evict pod as it would violate the pod's disruption budget/);
  assert.equal((await running()).length, 3, 'a refused eviction deletes nothing');

  await kubectl.ok(['patch', 'pdb', 'web', '--type=merge', '-p', '{"spec":{"minAvailable":2}}']);
  const one = await budget(1);
  assert.deepEqual(one.status!.conditions?.map((c) => [c.type, c.status, c.reason]), [['DisruptionAllowed', 'True', 'SufficientPods']]);

  const run = await kubectl.exec(['drain', 'node-2', '--ignore-daemonsets', '--grace-period=1', '--timeout=120s']);
  assert.equal(run.code, 0, run.stderr);
  const drained = run.stdout;
  // kubectl evicts all three at once: the budget lets one go and answers the others 429 until replacements are ready
  assert.match(run.stderr, /error when evicting pods\/"web-\S+" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./);
  assert.match(drained, /node\/node-2 cordoned/);
  for (const p of pods) assert.match(drained, new RegExp(`pod/${p.metadata.name} evicted`));
  assert.match(drained, /node\/node-2 drained/);
  assert.match(await kubectl.ok(['get', 'node', 'node-2']), /node-2\s+Ready,SchedulingDisabled/);
  await waitFor('3 pods Running on the first node', async () => {
    const list = await running();
    return list.length === 3 && list.every((p) => p.spec.nodeName === first);
  }, 30_000);
  await budget(1);
});
