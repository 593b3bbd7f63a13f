import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kubectlFor, removeDir, ROOT, startServer, waitFor, type ServerProcess } from './harness.js';

interface PodJson {
  metadata: { uid: string };
  status: { phase: string; startTime?: string; conditions?: { type: string; status: string }[]; containerStatuses?: Record<string, unknown>[] };
}

/** A standalone `skiff kubelet` process, restartable on the same root dir. */
interface KubeletProcess {
  proc: ChildProcess;
  logs(): string;
  exited: Promise<number | null>;
}

const NODE = 'restart-node';
let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;
let rootDir: string;
let kubelet: KubeletProcess | undefined;

function startKubelet(): KubeletProcess {
  const proc = spawn(process.execPath, [join(ROOT, 'bin/skiff.js'), 'kubelet', '--container-runtime', 'process', '--kubeconfig', server.kubeconfig, '--node-name', NODE, '--root-dir', rootDir, '--port', '0', '--health-port', '0', '--address', '127.0.0.1', '--node-ip', '127.0.0.1'], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info' },
  });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return { proc, logs: () => stderr, exited: new Promise((r) => proc.once('exit', (code) => r(code))) };
}

async function stopKubelet(k: KubeletProcess, signal: NodeJS.Signals): Promise<void> {
  if (k.proc.exitCode === null && k.proc.signalCode === null) k.proc.kill(signal);
  await k.exited;
}

/** Records of the process runtime under the kubelet's root dir: the pid of each pod's running container. */
function runningPids(): Map<string, number> {
  const dir = join(rootDir, 'runtime', 'containers');
  const out = new Map<string, number>();
  for (const id of existsSync(dir) ? readdirSync(dir) : []) {
    try {
      const s = JSON.parse(readFileSync(join(dir, id, 'state.json'), 'utf8')) as { podUid: string; status: { state: string; pid?: number } };
      if (s.status.state === 'Running' && s.status.pid) out.set(s.podUid, s.status.pid);
    } catch {
      // being rewritten
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const pod = (name: string) => kubectl.json<PodJson>(['get', 'pod', name]);
const manifest = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  nodeName: ${NODE}
  terminationGracePeriodSeconds: 2
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "i=0; while true; do echo ${name}-$i; i=$((i+1)); sleep 0.2; done"]
    readinessProbe:
      exec: {command: ["true"]}
      periodSeconds: 1
`;

before(async () => {
  server = await startServer({ command: 'server', args: ['--disable', 'kubelet'] });
  kubectl = kubectlFor(server.kubeconfig);
  rootDir = mkdtempSync(join(tmpdir(), 'skiff-kubelet-restart-'));
});

after(async () => {
  if (kubelet) await stopKubelet(kubelet, 'SIGKILL');
  // whatever a failed test left running is killed here, never left behind
  for (const pid of runningPids().values()) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await server?.stop();
  if (server) await removeDir(server.dataDir);
  if (rootDir) rmSync(rootDir, { recursive: true, force: true });
});

test('killing the kubelet leaves pods running; a restarted kubelet adopts them without restarting them', async () => {
  kubelet = startKubelet();
  await kubectl.ok(['apply', '-f', '-'], { input: [manifest('steady'), manifest('doomed')].join('---\n') });
  const ready = (name: string) => waitFor(`${name} Ready`, async () => {
    const p = await pod(name);
    return p.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? p : undefined;
  }, 30_000);
  const steady = await ready('steady');
  const doomed = await ready('doomed');
  const pid = runningPids().get(steady.metadata.uid)!;
  const doomedPid = runningPids().get(doomed.metadata.uid)!;
  assert.ok(pid && alive(pid) && doomedPid && alive(doomedPid));

  // SIGKILL: nothing runs on the kubelet's way out
  await stopKubelet(kubelet, 'SIGKILL');
  assert.ok(alive(pid), 'the container survives its kubelet');
  // meanwhile the API forgets one pod altogether (force delete: no kubelet confirms it)
  await kubectl.ok(['delete', 'pod', 'doomed', '--grace-period=0', '--force']);

  kubelet = startKubelet();
  await waitFor('the restarted kubelet adopts steady', () => kubelet!.logs().includes('adopted running pod'), 30_000);
  const after1 = await pod('steady');
  assert.equal(runningPids().get(steady.metadata.uid), pid, 'same process');
  assert.ok(alive(pid));
  assert.deepEqual(after1.status.containerStatuses, steady.status.containerStatuses, 'restart count, startedAt and containerID unchanged');
  assert.equal(after1.status.startTime, steady.status.startTime);
  // output written while no kubelet was reading is in the log, and logging goes on
  const logs = await kubectl.ok(['logs', 'steady']);
  const before1 = Number(/steady-(\d+)\n$/.exec(logs)?.[1]);
  await waitFor('more log lines after the adoption', async () => Number(/steady-(\d+)\n$/.exec(await kubectl.ok(['logs', 'steady']))?.[1]) > before1 + 2);
  // the force-deleted pod's container is removed by housekeeping
  await waitFor('the orphaned container is killed', () => !alive(doomedPid), 30_000, 250);

  // a graceful stop of a standalone kubelet leaves pods running too, as upstream's does
  await stopKubelet(kubelet, 'SIGTERM');
  assert.ok(alive(pid), 'still running after SIGTERM of the kubelet');
  kubelet = startKubelet();
  await waitFor('adopted again', () => kubelet!.logs().includes('adopted running pod'), 30_000);
  assert.deepEqual((await pod('steady')).status.containerStatuses, steady.status.containerStatuses);

  // the adopted container still stops through the kubelet: SIGTERM, then gone
  await kubectl.ok(['delete', 'pod', 'steady', '--wait=true']);
  assert.equal(alive(pid), false);
});

test('an adopted container that exits is restarted under its policy with its restart count carried on', async () => {
  const name = 'quitter';
  const flag = join(rootDir, 'quit');
  await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  nodeName: ${NODE}
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "while [ ! -e ${flag} ]; do sleep 0.1; done; rm -f ${flag}; exit 4"]
` });
  const running = await waitFor('quitter Running', async () => {
    const p = await pod(name);
    return p.status.phase === 'Running' ? p : undefined;
  }, 30_000);
  await stopKubelet(kubelet!, 'SIGKILL');
  // it exits while no kubelet watches: its shim records the status
  await import('node:fs/promises').then((fs) => fs.writeFile(flag, ''));
  kubelet = startKubelet();
  const restarted = await waitFor('quitter restarted once', async () => {
    const c = (await pod(name)).status.containerStatuses?.[0] as { restartCount: number; lastState: { terminated?: { exitCode: number } } } | undefined;
    return c && c.restartCount === 1 ? c : undefined;
  }, 30_000);
  assert.equal(restarted.lastState.terminated?.exitCode, 4);
  assert.notEqual(runningPids().get(running.metadata.uid), undefined);
  await kubectl.ok(['delete', 'pod', name, '--wait=true']);
});
