import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { firstMissing, missingCommand, missingRoot, skipUnless } from '../../src/testing/requirements.js';
import { kubectlFor, removeDir, ROOT, startServer, waitFor, type ServerProcess } from './harness.js';

interface NodeJson {
  spec: { taints?: { key: string; effect: string }[] };
  status: { conditions: { type: string; status: string; reason?: string; message?: string }[] };
}
interface PodJson {
  metadata: { name: string };
  status: { phase: string; reason?: string; message?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

const requirements = skipUnless(firstMissing(missingRoot(), missingCommand('mount', ['--version']), missingCommand('umount', ['--version'])));

let server: ServerProcess | undefined;
let kubectl: ReturnType<typeof kubectlFor>;
let rootDir = '';
let mounted = false;
let kubelet: ChildProcess | undefined;
let kubeletLogs = '';

function diskPressure(n: NodeJson): { status: string; reason?: string; message?: string } | undefined {
  return n.status.conditions.find((c) => c.type === 'DiskPressure');
}

before(async () => {
  if (requirements.skip) return;
  server = await startServer({ command: 'server', args: ['--node-monitor-period', '500ms'] });
  kubectl = kubectlFor(server.kubeconfig);
  // node-2's root dir is a 64 MiB tmpfs: a pod's emptyDir lives there, so filling it is real disk pressure for that kubelet alone
  rootDir = mkdtempSync(join(tmpdir(), 'skiff-evict-node-'));
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', rootDir], { encoding: 'utf8' });
  assert.equal(m.status, 0, `mount tmpfs: ${m.stderr}`);
  mounted = true;
  kubelet = spawn(process.execPath, [
    join(ROOT, 'bin/skiff.js'), 'kubelet', '--container-runtime', 'process', '--kubeconfig', server.kubeconfig, '--node-name', 'node-2',
    '--root-dir', rootDir, '--port', '0', '--health-port', '0',
    // 20% of 64 MiB; pressure ends 5 s after the space is back; the signals are read every second
    '--eviction-hard', 'nodefs.available<20%', '--eviction-pressure-transition-period', '5s', '--housekeeping-interval', '1s',
  ], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info' } });
  kubelet.stderr!.on('data', (d: Buffer) => (kubeletLogs += d.toString()));
});

after(async () => {
  if (kubelet && kubelet.exitCode === null && kubelet.signalCode === null) {
    // a standalone kubelet leaves pods running: delete them while it still runs
    await kubectl?.exec(['delete', 'pods', '--all', '--wait=true', '--timeout=30s']);
    const exited = new Promise((r) => kubelet!.once('exit', r));
    kubelet.kill('SIGTERM');
    await exited;
  }
  if (mounted) spawnSync('umount', ['-l', rootDir]);
  if (rootDir) rmSync(rootDir, { recursive: true, force: true });
  await server?.stop();
  if (server) await removeDir(server.dataDir);
});

test('a kubelet short of disk: DiskPressure and its taint, the filling pod Failed/Evicted with an event, new pods refused, then the condition clears', requirements, async () => {
  const node2 = async (): Promise<NodeJson> => kubectl.json<NodeJson>(['get', 'node', 'node-2']);
  await waitFor('node-2 Ready without pressure', async () => {
    const n = await node2();
    return n.status.conditions.find((c) => c.type === 'Ready')?.status === 'True' && diskPressure(n)?.status === 'False';
  }, 60_000).catch((err: Error) => assert.fail(`${err.message}\n${kubeletLogs.slice(-4000)}`));
  assert.deepEqual(diskPressure(await node2()), { ...diskPressure(await node2()), status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' });

  // a pod that writes 56 MiB into its emptyDir on node-2 (it needs no more than a shell and dd from the host)
  await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Pod
metadata: {name: filler}
spec:
  nodeSelector: {kubernetes.io/hostname: node-2}
  terminationGracePeriodSeconds: 30
  containers:
  - name: writer
    image: busybox
    command: ["sh", "-c", "dd if=/dev/zero of=/scratch/fill bs=1M count=56; sleep 3600"]
    volumeMounts: [{name: scratch, mountPath: /scratch}]
  volumes:
  - name: scratch
    emptyDir: {}
` });
  const evicted = await waitFor('the filler pod evicted', async () => {
    const p = await kubectl.json<PodJson>(['get', 'pod', 'filler']);
    return p.status.phase === 'Failed' ? p : undefined;
  }, 90_000).catch((err: Error) => assert.fail(`${err.message}\n${kubeletLogs.slice(-4000)}`));
  assert.equal(evicted.status.reason, 'Evicted');
  assert.match(evicted.status.message ?? '', /^The node was low on resource: ephemeral-storage\. Threshold quantity: 13421773, available: \d+(Ki|Mi)?\. Container writer was using \d+(Ki|Mi)?, request is 0, has larger consumption of ephemeral-storage\. $/);
  const disruption = evicted.status.conditions?.find((c) => c.type === 'DisruptionTarget');
  assert.deepEqual([disruption?.status, disruption?.reason, disruption?.message], ['True', 'TerminationByKubelet', evicted.status.message]);
  const podEvents = await kubectl.ok(['get', 'events', '--field-selector', 'involvedObject.name=filler']);
  assert.match(podEvents, /Warning\s+Evicted\s+pod\/filler\s+The node was low on resource: ephemeral-storage\./);
  const nodeEvents = await kubectl.ok(['get', 'events', '--field-selector', 'involvedObject.kind=Node,involvedObject.name=node-2']);
  assert.match(nodeEvents, /NodeHasDiskPressure\s+node\/node-2\s+Node node-2 status is now: NodeHasDiskPressure/);
  assert.match(nodeEvents, /EvictionThresholdMet\s+node\/node-2\s+Attempting to reclaim ephemeral-storage/);

  // the evicted pod's emptyDir went with it: the space is back, and 5 s later so is the condition
  await waitFor('DiskPressure False again', async () => diskPressure(await node2())?.status === 'False', 60_000);
  await waitFor('the disk-pressure taint removed', async () => !((await node2()).spec.taints ?? []).some((t) => t.key === 'node.kubernetes.io/disk-pressure'), 30_000);
  assert.match(await kubectl.ok(['get', 'events', '--field-selector', 'involvedObject.kind=Node,involvedObject.name=node-2']), /NodeHasNoDiskPressure/);

  // something outside any pod fills the disk: pressure that no eviction can relieve, so it holds while we look
  const ballast = join(rootDir, 'ballast');
  writeFileSync(ballast, Buffer.alloc(56 * 1024 * 1024));
  const pressed = await waitFor('DiskPressure True', async () => {
    const n = await node2();
    return diskPressure(n)?.status === 'True' ? n : undefined;
  }, 30_000);
  assert.deepEqual([diskPressure(pressed)?.reason, diskPressure(pressed)?.message], ['KubeletHasDiskPressure', 'kubelet has disk pressure']);
  await waitFor('the disk-pressure NoSchedule taint', async () => ((await node2()).spec.taints ?? []).some((t) => t.key === 'node.kubernetes.io/disk-pressure' && t.effect === 'NoSchedule'), 30_000);
  // the scheduler keeps new pods off node-2 …
  await kubectl.ok(['run', 'waiting', '--image=busybox', '--overrides', '{"spec":{"nodeSelector":{"kubernetes.io/hostname":"node-2"}}}', '--', 'sleep', '3600']);
  await waitFor('the pod unschedulable for the taint', async () => {
    const p = await kubectl.json<PodJson>(['get', 'pod', 'waiting']);
    return p.status.conditions?.find((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable' && /disk-pressure/.test(c.message ?? ''));
  }, 30_000);
  // … and the kubelet refuses one bound to it directly
  await kubectl.ok(['run', 'bound', '--image=busybox', '--overrides', '{"spec":{"nodeName":"node-2"}}', '--', 'sleep', '3600']);
  const refused = await waitFor('the bound pod refused', async () => {
    const p = await kubectl.json<PodJson>(['get', 'pod', 'bound']);
    return p.status.phase === 'Failed' ? p : undefined;
  }, 30_000);
  assert.deepEqual([refused.status.reason, refused.status.message], ['Evicted', 'Pod was rejected: The node had condition: [DiskPressure]. ']);

  rmSync(ballast);
  await waitFor('DiskPressure False after the ballast is gone', async () => diskPressure(await node2())?.status === 'False', 60_000);
  await waitFor('the waiting pod scheduled to node-2 once the taint is gone', async () => {
    const p = await kubectl.json<PodJson>(['get', 'pod', 'waiting']);
    return p.status.phase === 'Running';
  }, 60_000);
});
