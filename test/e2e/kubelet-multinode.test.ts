import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kubectlFor, removeDir, ROOT, startServer, waitFor, type ServerProcess } from './harness.js';

interface NodeJson {
  metadata: { name: string; labels: Record<string, string> };
  status: { conditions: { type: string; status: string }[]; daemonEndpoints: { kubeletEndpoint: { Port: number } } };
}

let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;
let rootDir: string;
let second: ChildProcess | undefined;
let secondExited: Promise<unknown> | undefined;
let secondLogs = '';

before(async () => {
  server = await startServer({ command: 'server' });
  kubectl = kubectlFor(server.kubeconfig);
  rootDir = mkdtempSync(join(tmpdir(), 'skiff-node-2-'));
});

after(async () => {
  // pods go first: a graceful stop of a standalone kubelet leaves its pods running
  await kubectl?.exec(['delete', 'pods', '--all', '--wait=true']);
  if (second && second.exitCode === null && second.signalCode === null) second.kill('SIGTERM');
  await secondExited;
  await server?.stop();
  if (server) await removeDir(server.dataDir);
  if (rootDir) rmSync(rootDir, { recursive: true, force: true });
});

test('a second skiff kubelet process joins as node-2, runs the pods scheduled to it and serves their logs', async () => {
  const first = await waitFor('the local node', async () => (await kubectl.json<{ items: NodeJson[] }>(['get', 'nodes'])).items[0]);
  second = spawn(process.execPath, [join(ROOT, 'bin/skiff.js'), 'kubelet', '--container-runtime', 'process', '--kubeconfig', server.kubeconfig, '--node-name', 'node-2', '--root-dir', rootDir, '--port', '0', '--health-port', '0', '--node-labels', 'skiff.test/pool=second'], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info' },
  });
  second.stderr!.on('data', (d: Buffer) => (secondLogs += d.toString()));
  secondExited = new Promise((r) => second!.once('exit', r));

  const node2 = await waitFor('node-2 Ready', async () => {
    const n = await kubectl.json<NodeJson>(['get', 'node', 'node-2']);
    return n.status.conditions.find((c) => c.type === 'Ready')?.status === 'True' ? n : undefined;
  }, 30_000).catch((err: Error) => assert.fail(`${err.message}\n${secondLogs}`));
  assert.equal(node2.metadata.labels['kubernetes.io/hostname'], 'node-2');
  assert.equal(node2.metadata.labels['skiff.test/pool'], 'second');
  assert.ok(node2.status.daemonEndpoints.kubeletEndpoint.Port > 0);
  assert.notEqual(node2.status.daemonEndpoints.kubeletEndpoint.Port, first.status.daemonEndpoints.kubeletEndpoint.Port);
  assert.match(await kubectl.ok(['get', 'nodes']), /node-2\s+Ready/);

  // the scheduler (in skiff server) places the pod on node-2 by its hostname label
  await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Pod
metadata: {name: far}
spec:
  nodeSelector: {kubernetes.io/hostname: node-2}
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "echo hello from $(hostname); sleep 3600"]
` });
  await waitFor('far Running on node-2', async () => {
    const p = await kubectl.json<{ spec: { nodeName?: string }; status: { phase: string } }>(['get', 'pod', 'far']);
    return p.spec.nodeName === 'node-2' && p.status.phase === 'Running';
  }, 30_000);
  assert.match(await kubectl.ok(['get', 'pod', 'far', '-o', 'wide']), /far\s+1\/1\s+Running\s+0\s+\S+\s+\S+\s+node-2\s/);
  // the API server proxies logs to node-2's own kubelet endpoint
  const logs = await waitFor('logs of far', async () => {
    const out = await kubectl.ok(['logs', 'far']);
    return out.includes('hello from') ? out : undefined;
  });
  assert.equal(logs, 'hello from far\n');

  // cordoning the local node sends new pods to node-2 as well
  await kubectl.ok(['cordon', first.metadata.name]);
  await kubectl.ok(['run', 'near', '--image=busybox', '--', 'sleep', '3600']);
  await waitFor('near Running on node-2', async () => {
    const p = await kubectl.json<{ spec: { nodeName?: string }; status: { phase: string } }>(['get', 'pod', 'near']);
    return p.spec.nodeName === 'node-2' && p.status.phase === 'Running';
  }, 30_000);
  await kubectl.ok(['uncordon', first.metadata.name]);
  await kubectl.ok(['delete', 'pod', 'far', 'near', '--grace-period=1', '--wait=true']);
});
