import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import https from 'node:https';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess, firstNodeName } from './harness.js';

interface PodJson {
  status: {
    phase: string;
    podIP?: string;
    hostIP?: string;
    startTime?: string;
    qosClass?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { ready: boolean; restartCount: number; started?: boolean; state: Record<string, { reason?: string; exitCode?: number }>; lastState: Record<string, { exitCode?: number }> }[];
  };
}

let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;
let nodeName: string;
let shared: string;

const condition = (p: PodJson, type: string) => p.status.conditions?.find((c) => c.type === type)?.status;

function podYaml(name: string, spec: string): string {
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  nodeName: ${nodeName}\n${spec}`;
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
  if (server) await removeDir(server.dataDir);
});

test('kubectl get node shows the node Ready with real capacity', async () => {
  const node = await kubectl.json<{ status: { capacity: Record<string, string>; conditions: { type: string; status: string }[]; nodeInfo: { kubeletVersion: string } } }>(['get', 'node', nodeName]);
  assert.equal(node.status.capacity.cpu, String(cpus().length));
  assert.equal(node.status.capacity.pods, '110');
  assert.match(node.status.capacity.memory, /^\d+Ki$/);
  assert.equal(node.status.conditions.find((c) => c.type === 'Ready')?.status, 'True');
  assert.equal(node.status.nodeInfo.kubeletVersion, 'v1.32.0-skiff');
  const table = await kubectl.ok(['get', 'node']);
  assert.match(table, new RegExp(`${nodeName}\\s+Ready`));
  await kubectl.ok(['get', 'lease', '-n', 'kube-node-lease', nodeName]);
});

test('the kubelet server refuses callers without a certificate from the cluster CA', async () => {
  const node = await kubectl.json<{ status: { daemonEndpoints: { kubeletEndpoint: { Port: number } } } }>(['get', 'node', nodeName]);
  const port = node.status.daemonEndpoints.kubeletEndpoint.Port;
  const status = await new Promise<number>((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path: '/pods', rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
  // (kubectl logs/exec through the API server, which presents its client certificate, are tested in kubelet-streaming)
  assert.equal(status, 401);
});

test('pods on the node: running, completed, crash-looping, env/configMap, readiness, graceful delete', async () => {
  await kubectl.ok(['create', 'configmap', 'app-config', '--from-literal=greeting=from-configmap']);
  const out = join(shared, 'env.txt');
  const ready = join(shared, 'ready');
  const termed = join(shared, 'terminated');
  const pidFile = join(shared, 'graceful.pid');
  // a path of its own: the process runtime creates mount points on the host filesystem
  const mnt = join(shared, 'mnt', 'config');
  const manifests = [
    podYaml('sleeper', `  containers:\n  - name: main\n    image: busybox\n    command: ["sh", "-c", "echo hello; sleep 3600"]\n`),
    podYaml('once', `  restartPolicy: Never\n  containers:\n  - name: main\n    image: busybox\n    command: ["sh", "-c", "echo done"]\n`),
    podYaml('crasher', `  containers:\n  - name: main\n    image: busybox\n    command: ["sh", "-c", "exit 3"]\n`),
    podYaml('configured', [
      '  restartPolicy: Never',
      '  containers:',
      '  - name: main',
      '    image: busybox',
      '    command: ["sh", "-c", "echo $(MODE) $GREETING $MY_POD $(cat ' + mnt + '/greeting) > ' + out + '"]',
      '    env:',
      '    - {name: MODE, value: test}',
      '    - name: GREETING',
      '      valueFrom: {configMapKeyRef: {name: app-config, key: greeting}}',
      '    - name: MY_POD',
      '      valueFrom: {fieldRef: {fieldPath: metadata.name}}',
      '    volumeMounts: [{name: cfg, mountPath: ' + mnt + '}]',
      '  volumes: [{name: cfg, configMap: {name: app-config}}]',
      '',
    ].join('\n')),
    podYaml('gated', `  containers:\n  - name: main\n    image: busybox\n    command: ["sleep", "3600"]\n    readinessProbe:\n      exec: {command: ["test", "-e", "${ready}"]}\n      periodSeconds: 1\n`),
    podYaml('graceful', `  terminationGracePeriodSeconds: 10\n  containers:\n  - name: main\n    image: busybox\n    command: ["sh", "-c", "echo $$$$ > ${pidFile}; trap 'echo bye > ${termed}; exit 0' TERM; while true; do sleep 0.1; done"]\n`),
  ];
  await kubectl.ok(['apply', '-f', '-'], { input: manifests.join('---\n') });
  const pod = (name: string) => kubectl.json<PodJson>(['get', 'pod', name]);

  // Running and Ready with the status upstream reports
  const sleeper = await waitFor('sleeper Running and Ready', async () => {
    const p = await pod('sleeper');
    return p.status.phase === 'Running' && condition(p, 'Ready') === 'True' ? p : undefined;
  });
  for (const t of ['PodScheduled', 'Initialized', 'ContainersReady', 'PodReadyToStartContainers']) assert.equal(condition(sleeper, t), 'True', t);
  assert.ok(sleeper.status.podIP && sleeper.status.hostIP && sleeper.status.startTime);
  assert.equal(sleeper.status.qosClass, 'BestEffort');
  const cs = sleeper.status.containerStatuses![0];
  assert.ok(cs.state.running && cs.ready && cs.started);
  assert.equal(cs.restartCount, 0);

  // restartPolicy Never + exit 0: Succeeded, shown as Completed
  await waitFor('once Completed', async () => (await pod('once')).status.phase === 'Succeeded');
  assert.match(await kubectl.ok(['get', 'pod', 'once']), /once\s+0\/1\s+Completed\s+0/);
  const once = await pod('once');
  assert.equal(once.status.containerStatuses![0].state.terminated?.reason, 'Completed');
  assert.equal(condition(once, 'Ready'), 'False');

  // env, $(VAR) expansion, configMapKeyRef, fieldRef and the configMap volume reach the process
  await waitFor('configured wrote its environment', () => existsSync(out) && readFileSync(out, 'utf8').trim() !== '');
  assert.equal(readFileSync(out, 'utf8').trim(), 'test from-configmap configured from-configmap');

  // readiness gates Ready
  const gated = await waitFor('gated Running', async () => {
    const p = await pod('gated');
    return p.status.phase === 'Running' ? p : undefined;
  });
  assert.equal(condition(gated, 'Ready'), 'False');
  assert.equal(gated.status.containerStatuses![0].ready, false);
  writeFileSync(ready, '');
  await waitFor('gated Ready', async () => condition(await pod('gated'), 'Ready') === 'True');

  // graceful deletion: SIGTERM reaches the process, which exits before the grace period ends
  await waitFor('graceful Running', async () => (await pod('graceful')).status.phase === 'Running' && existsSync(pidFile));
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  assert.ok(processAlive(pid));
  const t0 = Date.now();
  await kubectl.ok(['delete', 'pod', 'graceful', '--wait=true']);
  assert.ok(Date.now() - t0 < 8000, 'deleted well before the grace period ran out');
  assert.equal(readFileSync(termed, 'utf8').trim(), 'bye');
  assert.equal(processAlive(pid), false);
  await kubectl.fails(['get', 'pod', 'graceful']);

  // a crashing container backs off with a growing restart count
  const crash = await waitFor('crasher in CrashLoopBackOff after two restarts', async () => {
    const p = await pod('crasher');
    const c = p.status.containerStatuses?.[0];
    return c && c.restartCount >= 2 && c.state.waiting?.reason === 'CrashLoopBackOff' ? p : undefined;
  }, 45_000, 250);
  assert.equal(crash.status.containerStatuses![0].lastState.terminated?.exitCode, 3);
  assert.match(await kubectl.ok(['get', 'pod', 'crasher']), /crasher\s+0\/1\s+CrashLoopBackOff\s+2/);
});

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
