import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { kubectlFor, removeDir, ROOT, startServer, waitFor } from '../test/e2e/harness.js';
import { fmt } from './stats.js';

interface PodJson {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { phase: string };
}

/**
 * `npm run bench -- nodefailure [--defaults]`: a second `skiff kubelet` runs
 * a Deployment's 2 pods, is killed with SIGKILL, and the bench times (from
 * the kill) the node turning NotReady, its pods' eviction (deletion
 * requested) and the replacements Running on the other node. Short settings
 * (5 s grace, tolerationSeconds 2) by default; `--defaults` also runs
 * upstream's (40 s grace, 300 s tolerationSeconds: over 5 minutes). A figure
 * that does not come within its deadline is printed as missing.
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { defaults: { type: 'boolean', default: false } } });
  process.stdout.write(`load average at start: ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  const runs = [{ label: 'short (grace 5 s, tolerationSeconds 2)', grace: '5s', lease: '2', toleration: 2 }];
  if (values.defaults) runs.push({ label: 'upstream defaults (grace 40 s, tolerationSeconds 300)', grace: '40s', lease: '40', toleration: 300 });
  for (const r of runs) {
    const f = await measure(r.grace, r.lease, r.toleration);
    process.stdout.write(`\n${r.label}\n`);
    for (const [k, v] of Object.entries(f)) process.stdout.write(`  kill -9 → ${k.padEnd(22)} ${v === undefined ? 'missing (deadline passed)' : `${fmt(v / 1000)} s`}\n`);
  }
  process.stdout.write(`\nload average at end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
}

async function measure(grace: string, lease: string, toleration: number): Promise<Record<string, number | undefined>> {
  const server = await startServer({ command: 'server', args: ['--node-monitor-grace-period', grace, '--node-monitor-period', '500ms', '--node-lease-duration-seconds', lease] });
  const kubectl = kubectlFor(server.kubeconfig);
  const rootDir = mkdtempSync(join(tmpdir(), 'skiff-bench-node-2-'));
  let kubelet: ChildProcess | undefined;
  try {
    // the server's own kubelet registers its node a moment after the server answers
    const first = await waitFor('the server\u2019s node', async () => (await kubectl.json<{ items: { metadata: { name: string } }[] }>(['get', 'nodes'])).items[0]?.metadata.name, 60_000);
    kubelet = spawn(process.execPath, [join(ROOT, 'bin/skiff.js'), 'kubelet', '--container-runtime', 'process', '--kubeconfig', server.kubeconfig, '--node-name', 'node-2', '--root-dir', rootDir, '--port', '0', '--health-port', '0', '--node-lease-duration-seconds', lease], { cwd: ROOT, stdio: 'ignore' });
    await waitFor('node-2 Ready', async () => /node-2\s+Ready/.test(await kubectl.ok(['get', 'nodes'])), 60_000);
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
      - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: ${toleration}}
      - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: ${toleration}}
      containers: [{name: main, image: busybox, command: ["sleep", "3600"]}]
` });
    const pods = async (): Promise<PodJson[]> => (await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web'])).items;
    const onNode2 = await waitFor('2 pods Running on node-2', async () => {
      const p = (await pods()).filter((x) => x.status.phase === 'Running' && x.spec.nodeName === 'node-2');
      return p.length === 2 ? p.map((x) => x.metadata.name) : undefined;
    }, 60_000);
    await kubectl.ok(['uncordon', first]);
    const killedAt = performance.now();
    kubelet.kill('SIGKILL');
    const deadline = toleration * 1000 + 120_000;
    const since = async (what: string, check: () => Promise<boolean>): Promise<number | undefined> => {
      try {
        await waitFor(what, async () => check(), deadline, 200);
        return performance.now() - killedAt;
      } catch {
        return undefined;
      }
    };
    const notReady = await since('NotReady', async () => /node-2\s+NotReady/.test(await kubectl.ok(['get', 'nodes'])));
    const evicted = await since('evicted', async () => (await pods()).filter((p) => onNode2.includes(p.metadata.name)).every((p) => p.metadata.deletionTimestamp));
    const replaced = await since('replacements Running', async () => (await pods()).filter((p) => p.status.phase === 'Running' && !p.metadata.deletionTimestamp && p.spec.nodeName === first).length === 2);
    // a standalone kubelet leaves its pods running: a restarted node-2 finishes off the evicted ones before the bench ends
    kubelet = spawn(process.execPath, [join(ROOT, 'bin/skiff.js'), 'kubelet', '--container-runtime', 'process', '--kubeconfig', server.kubeconfig, '--node-name', 'node-2', '--root-dir', rootDir, '--port', '0', '--health-port', '0'], { cwd: ROOT, stdio: 'ignore' });
    await waitFor('the evicted pods gone', async () => !(await pods()).some((p) => onNode2.includes(p.metadata.name)), 60_000).catch(() => process.stdout.write('  (node-2\'s evicted pods were not cleaned up)\n'));
    return { 'node NotReady': notReady, 'pods evicted': evicted, 'replacements Running': replaced };
  } finally {
    kubelet?.kill('SIGTERM');
    await server.stop();
    await removeDir(server.dataDir);
    rmSync(rootDir, { recursive: true, force: true });
  }
}
