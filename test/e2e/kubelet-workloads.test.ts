import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { missingRoot, skipUnless } from '../../src/testing/requirements.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess, firstNodeName } from './harness.js';

interface ContainerStatusJson {
  ready: boolean;
  restartCount: number;
  state: Record<string, { reason?: string; exitCode?: number; startedAt?: string }>;
  lastState: Record<string, { reason?: string; exitCode?: number }>;
}
interface PodJson {
  metadata: { uid: string };
  spec: { nodeName?: string };
  status: { phase: string; podIP?: string; containerStatuses?: ContainerStatusJson[] };
}

let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;
let nodeName: string;
let shared: string;
/** Container pids seen by the tests: none may outlive the server. */
const pids: number[] = [];

const pod = (name: string) => kubectl.json<PodJson>(['get', 'pod', name]);
const container = async (name: string) => (await pod(name)).status.containerStatuses?.[0];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

before(async () => {
  server = await startServer({ command: 'server' });
  kubectl = kubectlFor(server.kubeconfig);
  shared = join(server.dataDir, 'shared');
  mkdirSync(shared, { recursive: true });
  nodeName = await firstNodeName(kubectl);
});

after(async () => {
  await server?.stop();
  // a graceful stop of skiff server stops its pods (unless --keep-pods): nothing is left behind
  for (const pid of pids) assert.equal(alive(pid), false, `container process ${pid} outlived skiff server`);
  if (server) await removeDir(server.dataDir);
});

test('kubectl run with args only runs them as the command; -o wide shows node and IP', async () => {
  // kubectl run puts `sleep 3600` in args; without an image entrypoint the process runtime runs args as the command
  await kubectl.ok(['run', 'sleeper', '--image=busybox', '--', 'sleep', '3600']);
  await waitFor('sleeper Running', async () => (await pod('sleeper')).status.phase === 'Running');
  const p = await pod('sleeper');
  assert.equal(p.spec.nodeName, nodeName);
  assert.ok(p.status.podIP);
  const wide = await kubectl.ok(['get', 'pod', 'sleeper', '-o', 'wide']);
  assert.match(wide, new RegExp(`sleeper\\s+1/1\\s+Running\\s+0\\s+\\S+\\s+${p.status.podIP!.replace(/\./g, '\\.')}\\s+${nodeName}\\s`));
  const pid = await waitFor('the container process', () => containerPid(server.dataDir, p.metadata.uid));
  assert.deepEqual(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean), ['sleep', '3600']);
  pids.push(pid);
});

test('kubectl logs -f follows a running container', async () => {
  await kubectl.ok(['run', 'ticker', '--image=busybox', '--command', '--', 'sh', '-c', 'i=0; while true; do echo tick-$i; i=$((i+1)); sleep 0.2; done']);
  await waitFor('ticker Running', async () => (await pod('ticker')).status.phase === 'Running');
  const follow = spawn(kubectl.bin, ['--kubeconfig', server.kubeconfig, 'logs', '-f', 'ticker'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  follow.stdout.on('data', (d: Buffer) => (out += d.toString()));
  try {
    // lines keep arriving on the open stream: tick-5 is printed a second after the start
    await waitFor('followed lines', () => /tick-0\n[\s\S]*tick-5\n/.test(out), 20_000);
    assert.equal(follow.exitCode, null, 'logs -f is still following');
  } finally {
    follow.kill();
  }
  await kubectl.ok(['delete', 'pod', 'ticker', '--grace-period=1']);
});

test('a container that exits 1 crash-loops with growing restarts; logs --previous shows the last attempt', async () => {
  await kubectl.ok(['run', 'crasher', '--image=busybox', '--command', '--', 'sh', '-c', 'echo attempt-at-$(date +%s%N); exit 1']);
  const first = await waitFor('a first restart', async () => {
    const c = await container('crasher');
    return c && c.restartCount >= 1 ? c : undefined;
  }, 20_000);
  const c = await waitFor('CrashLoopBackOff with two restarts', async () => {
    const s = await container('crasher');
    return s && s.restartCount >= 2 && s.state.waiting?.reason === 'CrashLoopBackOff' ? s : undefined;
  }, 45_000, 250);
  assert.ok(c.restartCount > first.restartCount);
  assert.equal(c.lastState.terminated?.exitCode, 1);
  assert.equal(c.lastState.terminated?.reason, 'Error');
  assert.match(await kubectl.ok(['get', 'pod', 'crasher']), /crasher\s+0\/1\s+CrashLoopBackOff\s+\d+/);
  const previous = await kubectl.ok(['logs', 'crasher', '--previous']);
  assert.match(previous, /^attempt-at-\d+\n$/);
  await kubectl.ok(['delete', 'pod', 'crasher', '--grace-period=0', '--force']);
});

test('a Deployment of 3 replicas with readiness probes reaches 3/3 Ready', async () => {
  const ready = join(shared, 'web-ready');
  const manifest = `apiVersion: apps/v1
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
      - name: web
        image: busybox
        command: ["sleep", "3600"]
        readinessProbe:
          exec: {command: ["test", "-e", "${ready}"]}
          periodSeconds: 1
`;
  await kubectl.ok(['apply', '-f', '-'], { input: manifest });
  const deploy = () => kubectl.json<{ status: { readyReplicas?: number; replicas?: number } }>(['get', 'deployment', 'web']);
  await waitFor('3 pods Running', async () => {
    const list = await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web']);
    return list.items.length === 3 && list.items.every((p) => p.status.phase === 'Running');
  }, 30_000);
  // the probe fails until the file exists: Running but not Ready
  assert.equal((await deploy()).status.readyReplicas ?? 0, 0);
  writeFileSync(ready, '');
  await waitFor('3/3 Ready', async () => (await deploy()).status.readyReplicas === 3, 30_000);
  assert.match(await kubectl.ok(['get', 'deployment', 'web']), /web\s+3\/3\s+3\s+3/);
  await kubectl.ok(['delete', 'deployment', 'web']);
});

test('a container allocating past its memory limit is OOMKilled', skipUnless(missingRoot()), async () => {
  const manifest = `apiVersion: v1
kind: Pod
metadata: {name: hog}
spec:
  restartPolicy: Never
  containers:
  - name: hog
    image: python
    command: ["python3", "-c", "b = bytearray(200 * 1024 * 1024); print(len(b))"]
    resources: {limits: {memory: 50Mi}}
`;
  await kubectl.ok(['apply', '-f', '-'], { input: manifest });
  const c = await waitFor('hog terminated', async () => {
    const s = await container('hog');
    return s?.state.terminated ? s : undefined;
  }, 30_000);
  assert.equal(c.state.terminated!.reason, 'OOMKilled');
  assert.equal(c.state.terminated!.exitCode, 137);
  assert.equal((await pod('hog')).status.phase, 'Failed');
  assert.match(await kubectl.ok(['get', 'pod', 'hog']), /hog\s+0\/1\s+OOMKilled\s+0/);
});

test('kubectl delete pod sends SIGTERM; a process ignoring it is killed once the grace period ends', async () => {
  const pidFile = join(shared, 'stubborn.pid');
  const termed = join(shared, 'stubborn.term');
  const manifest = `apiVersion: v1
kind: Pod
metadata: {name: stubborn}
spec:
  terminationGracePeriodSeconds: 3
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "echo $$$$ > ${pidFile}; trap 'echo got-term > ${termed}' TERM; while true; do sleep 0.1; done"]
`;
  await kubectl.ok(['apply', '-f', '-'], { input: manifest });
  await waitFor('stubborn Running', async () => (await pod('stubborn')).status.phase === 'Running' && existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  pids.push(pid);
  assert.ok(alive(pid));
  const t0 = Date.now();
  await kubectl.ok(['delete', 'pod', 'stubborn', '--wait=true']);
  const took = Date.now() - t0;
  assert.equal(readFileSync(termed, 'utf8').trim(), 'got-term', 'SIGTERM reached the process');
  assert.ok(took >= 2500, `the process had its grace period (${took} ms)`);
  assert.ok(took < 15_000, `and was killed when it ended (${took} ms)`);
  assert.equal(alive(pid), false);
});

/** The pid of a pod's running container, from the process runtime's records under the kubelet's root dir. */
function containerPid(dataDir: string, podUid: string): number | undefined {
  const dir = join(dataDir, 'kubelet', 'runtime', 'containers');
  for (const id of existsSync(dir) ? readdirSync(dir) : []) {
    try {
      const state = JSON.parse(readFileSync(join(dir, id, 'state.json'), 'utf8')) as { podUid: string; status: { pid?: number; state: string } };
      if (state.podUid === podUid && state.status.state === 'Running' && state.status.pid) return state.status.pid;
    } catch {
      // being written or removed
    }
  }
  return undefined;
}
