import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kubectlFor, removeDir, ROOT, run, startServer, waitFor, type ServerProcess } from './harness.js';

const SKIFF = join(ROOT, 'bin/skiff.js');
/**
 * The signer's certificate life: with upstream's five minutes of backdating
 * a 100 s certificate spans 400 s, so its 70–90% deadline falls between 20 s
 * before (renewed at once) and 60 s after it was issued, always before it
 * expires.
 */
const SIGNING_DURATION = '100s';

let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;
let rootDir: string;
let node: ChildProcess | undefined;
let nodeExited: Promise<unknown> | undefined;
let nodeLogs = '';

before(async () => {
  server = await startServer({ args: ['--disable', 'kubelet', '--cluster-signing-duration', SIGNING_DURATION] });
  kubectl = kubectlFor(server.kubeconfig);
  rootDir = mkdtempSync(join(tmpdir(), 'skiff-rotate-'));
});

after(async () => {
  await kubectl?.exec(['delete', 'pods', '--all', '--wait=true', '--timeout=30s']);
  if (node && node.exitCode === null && node.signalCode === null) node.kill('SIGTERM');
  await nodeExited;
  await server?.stop();
  if (server) await removeDir(server.dataDir);
  if (rootDir) rmSync(rootDir, { recursive: true, force: true });
});

const certFile = () => join(rootDir, 'pki', 'kubelet-client-current.pem');
const serialOnDisk = (): string => {
  try {
    return new X509Certificate(readFileSync(certFile())).serialNumber;
  } catch {
    return '';
  }
};

test('a joined kubelet renews its client certificate through a CSR and keeps working with the new one', async () => {
  const join_ = await run(process.execPath, [SKIFF, 'token', 'create', '--kubeconfig', server.kubeconfig, '--print-join-command']);
  assert.equal(join_.code, 0, join_.stderr);
  const m = /--token (\S+) --ca-cert-hash (\S+)/.exec(join_.stdout);
  assert.ok(m, join_.stdout);
  node = spawn(process.execPath, [SKIFF, 'kubelet', '--server', `https://127.0.0.1:${server.port}`, '--token', m[1], '--ca-cert-hash', m[2], '--node-name', 'worker-1',
    '--container-runtime', 'process', '--root-dir', rootDir, '--port', '0', '--health-port', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info' } });
  node.stderr!.on('data', (d: Buffer) => (nodeLogs += d.toString()));
  nodeExited = new Promise((r) => node!.once('exit', r));
  const fail = (err: Error) => assert.fail(`${err.message}\n${nodeLogs.slice(-4000)}`);

  await waitFor('worker-1 Ready', async () => (await kubectl.exec(['get', 'node', 'worker-1', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).stdout === 'True', 90_000).catch(fail);
  const first = serialOnDisk();
  assert.ok(first, 'the bootstrap certificate is on disk');
  const issued = new X509Certificate(readFileSync(certFile()));
  assert.equal(Date.parse(issued.validTo) - Date.parse(issued.validFrom), 400_000, 'the signer issues --cluster-signing-duration past now, backdated five minutes');

  // the renewal: a new serial on disk, announced in one structured line, asked for as the node itself and auto-approved
  await waitFor('a rotated certificate', () => serialOnDisk() !== '' && serialOnDisk() !== first, 120_000).catch(fail);
  const second = serialOnDisk();
  const line = nodeLogs.split('\n').filter((l) => l.includes('"rotated the client certificate"')).map((l) => JSON.parse(l) as Record<string, string>).find((l) => l.serial === second);
  assert.ok(line, nodeLogs.slice(-4000));
  assert.equal(line.previousSerial, first);
  assert.match(line.csr, /^csr-[0-9a-f]{16}$/);
  const csr = await kubectl.json<{ spec: { username: string; signerName: string }; status: { conditions: { type: string; reason: string }[] } }>(['get', 'csr', line.csr, '-o', 'json']);
  assert.equal(csr.spec.username, 'system:node:worker-1');
  assert.equal(csr.spec.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
  assert.deepEqual(csr.status.conditions.map((c) => [c.type, c.reason]), [['Approved', 'AutoApproved']]);

  // the kubelet goes on with the new certificate without a restart: once the first one has expired, its lease still moves on and it runs a new pod
  const expired = Date.parse(issued.validTo) + 1000;
  await waitFor('the first certificate to expire', () => Date.now() > expired, 150_000);
  await waitFor('a lease renewal after the first certificate expired', async () => {
    const r = await kubectl.exec(['get', 'lease', '-n', 'kube-node-lease', 'worker-1', '-o', 'jsonpath={.spec.renewTime}']);
    return r.code === 0 && Date.parse(r.stdout) > expired;
  }, 60_000).catch(fail);
  await kubectl.ok(['run', 'after-rotation', '--image=busybox', '--restart=Never', '--overrides={"spec":{"nodeName":"worker-1"}}', '--', 'sh', '-c', 'echo still here']);
  await waitFor('the pod to succeed', async () => (await kubectl.exec(['get', 'pod', 'after-rotation', '-o', 'jsonpath={.status.phase}'])).stdout === 'Succeeded', 60_000).catch(fail);
  assert.equal((await kubectl.ok(['logs', 'after-rotation'])).trim(), 'still here');
  assert.equal(node.exitCode, null, 'the kubelet was not restarted');

  // the kubeconfig on disk names the rotated file, so kubectl with it is the node too
  const asNode = kubectlFor(join(rootDir, 'pki', 'kubelet.kubeconfig'));
  assert.match(await asNode.ok(['auth', 'whoami']), /system:node:worker-1/);
});
