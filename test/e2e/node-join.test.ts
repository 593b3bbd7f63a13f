import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kubectlFor, removeDir, ROOT, run, startServer, waitFor, type ServerProcess } from './harness.js';

const SKIFF = join(ROOT, 'bin/skiff.js');

let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;
let rootDir: string;
let node: ChildProcess | undefined;
let nodeExited: Promise<unknown> | undefined;
let nodeLogs = '';

before(async () => {
  server = await startServer({ args: ['--disable', 'kubelet'] });
  kubectl = kubectlFor(server.kubeconfig);
  rootDir = mkdtempSync(join(tmpdir(), 'skiff-join-'));
});

after(async () => {
  await kubectl?.exec(['delete', 'pods', '--all', '--wait=true', '--timeout=30s']);
  if (node && node.exitCode === null && node.signalCode === null) node.kill('SIGTERM');
  await nodeExited;
  await server?.stop();
  if (server) await removeDir(server.dataDir);
  if (rootDir) rmSync(rootDir, { recursive: true, force: true });
});

test('skiff kubelet --token joins by bootstrap token and CSR, then acts as system:node:<name> only', async () => {
  const join_ = await run(process.execPath, [SKIFF, 'token', 'create', '--kubeconfig', server.kubeconfig, '--print-join-command', '--description', 'e2e join']);
  assert.equal(join_.code, 0, join_.stderr);
  const m = /--token (\S+) --ca-cert-hash (\S+)/.exec(join_.stdout);
  assert.ok(m, join_.stdout);

  // a wrong CA hash is refused before the token is sent anywhere
  const wrong = await run(process.execPath, [SKIFF, 'kubelet', '--server', `https://127.0.0.1:${server.port}`, '--token', m[1], '--ca-cert-hash', `sha256:${'0'.repeat(64)}`, '--root-dir', join(rootDir, 'wrong')]);
  assert.notEqual(wrong.code, 0);
  assert.match(wrong.stderr, /cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "sha256:[0-9a-f]{64}" are pinned/);

  node = spawn(process.execPath, [SKIFF, 'kubelet', '--server', `https://127.0.0.1:${server.port}`, '--token', m[1], '--ca-cert-hash', m[2], '--node-name', 'worker-1',
    '--container-runtime', 'process', '--root-dir', rootDir, '--port', '0', '--health-port', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info' } });
  node.stderr!.on('data', (d: Buffer) => (nodeLogs += d.toString()));
  nodeExited = new Promise((r) => node!.once('exit', r));

  await waitFor('worker-1 Ready', async () => {
    const r = await kubectl.exec(['get', 'node', 'worker-1', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']);
    return r.stdout === 'True';
  }, 60_000).catch((err: Error) => assert.fail(`${err.message}\n${nodeLogs.slice(-4000)}`));
  const csrs = await kubectl.ok(['get', 'csr']);
  assert.match(csrs, /node-csr-\S+\s+\S+\s+kubernetes\.io\/kube-apiserver-client-kubelet\s+system:bootstrap:[a-z0-9]{6}\s+<none>\s+Approved,Issued/);

  // the node's own credentials: it is system:node:worker-1 in system:nodes
  const nodeConfig = join(rootDir, 'pki', 'kubelet.kubeconfig');
  assert.ok(existsSync(nodeConfig));
  const asNode = kubectlFor(nodeConfig);
  assert.match(await asNode.ok(['auth', 'whoami']), /system:node:worker-1[\s\S]*\[system:nodes system:authenticated\]/);
  await kubectl.ok(['create', 'secret', 'generic', 'db-password', '--from-literal=password=s3cret']);
  const secret = await asNode.fails(['get', 'secret', 'db-password']);
  assert.match(secret, /secrets "db-password" is forbidden: User "system:node:worker-1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'worker-1' and this object/);

  // the joined node runs what the scheduler gives it, reading only the secret and config map its pod refers to
  await kubectl.ok(['create', 'secret', 'generic', 'app-token', '--from-literal=token=t0ken']);
  await kubectl.ok(['create', 'configmap', 'app-config', '--from-literal=greeting=joined']);
  const overrides = {
    spec: {
      nodeName: 'worker-1',
      containers: [{
        name: 'hello', image: 'busybox', command: ['sh', '-c', 'echo "$GREETING $(cat /etc/app/token)"'],
        env: [{ name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'app-config', key: 'greeting' } } }],
        volumeMounts: [{ name: 'token', mountPath: '/etc/app' }],
      }],
      volumes: [{ name: 'token', secret: { secretName: 'app-token' } }],
    },
  };
  await kubectl.ok(['run', 'hello', '--image=busybox', '--restart=Never', `--overrides=${JSON.stringify(overrides)}`]);
  await waitFor('the pod to succeed', async () => (await kubectl.exec(['get', 'pod', 'hello', '-o', 'jsonpath={.status.phase}'])).stdout === 'Succeeded', 60_000)
    .catch((err: Error) => assert.fail(`${err.message}\n${nodeLogs.slice(-4000)}`));
  assert.equal((await kubectl.ok(['logs', 'hello'])).trim(), 'joined t0ken');

  // the Node authorizer: the pod's secret is readable by this node (by name, or watched by metadata.name), nothing else is
  assert.match(await asNode.ok(['get', 'secret', 'app-token', '-o', 'name']), /secret\/app-token/);
  assert.match(await asNode.ok(['get', 'secrets', '--field-selector', 'metadata.name=app-token', '-o', 'name']), /secret\/app-token/);
  assert.match(await asNode.fails(['get', 'secrets']), /secrets is forbidden: User "system:node:worker-1" cannot list resource "secrets" in API group "" in the namespace "default": No Object name found/);
  assert.match(await asNode.fails(['get', 'secret', 'db-password']), /no relationship found between node 'worker-1' and this object/);
  assert.match(await asNode.fails(['get', 'nodes']), /node 'worker-1' cannot read all nodes, only its own Node object/);

  // NodeRestriction: another node's status and restricted labels of its own are out of reach
  await kubectl.ok(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-2' } }) });
  // (kubectl patch would first get nodes/status, which the Node authorizer already refuses: PUT it raw)
  const hijack = JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-2' }, status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Hijacked' }] } });
  assert.match(await asNode.fails(['replace', '--raw', '/api/v1/nodes/worker-2/status', '-f', '-'], { input: hijack }), /nodes "worker-2" is forbidden: node "worker-1" is not allowed to modify node "worker-2"/);
  assert.match(await asNode.fails(['patch', 'node', 'worker-2', '--subresource=status', '--type=merge', '-p', '{"status":{}}']), /User "system:node:worker-1" cannot get resource "nodes\/status"/);
  assert.match(await asNode.fails(['label', 'node', 'worker-1', 'node-role.kubernetes.io/control-plane=']), /nodes "worker-1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io\/control-plane/);
  await asNode.ok(['label', 'node', 'worker-1', 'example.com/rack=r1']);

  // a restart keeps the issued certificate instead of joining again
  node.kill('SIGTERM');
  await nodeExited;
  const before = (await kubectl.json<{ items: unknown[] }>(['get', 'csr'])).items.length;
  node = spawn(process.execPath, [SKIFF, 'kubelet', '--server', `https://127.0.0.1:${server.port}`, '--token', m[1], '--ca-cert-hash', m[2], '--node-name', 'worker-1',
    '--container-runtime', 'process', '--root-dir', rootDir, '--port', '0', '--health-port', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info' } });
  nodeLogs = '';
  node.stderr!.on('data', (d: Buffer) => (nodeLogs += d.toString()));
  nodeExited = new Promise((r) => node!.once('exit', r));
  await waitFor('the restarted kubelet to register', () => /kubelet server listening/.test(nodeLogs), 30_000);
  assert.equal((await kubectl.json<{ items: unknown[] }>(['get', 'csr'])).items.length, before);
});
