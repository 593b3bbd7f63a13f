import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import https from 'node:https';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiBalancer } from './api-balancer.js';
import { etcdMembers } from './etcd-members.js';
import type { DiskTarget } from './fault-injector.js';
import { ScratchDisk } from './scratch-disk.js';
import { SupervisedProcess } from './supervised-process.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const SKIFF = join(ROOT, 'bin/skiff.js');

export type StorageKind = 'sqlite' | 'etcd';

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolvePort(port));
    });
  });
}

/** GET a health path; true on 200. */
function healthy(url: string): Promise<boolean> {
  return new Promise((resolveOk) => {
    const req = https.get(url, { rejectUnauthorized: false, timeout: 2000 }, (res) => {
      res.resume();
      resolveOk(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolveOk(false));
  });
}

async function httpHealthy(port: number, path = '/healthz'): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.ok;
}

/**
 * The soak's cluster, every component its own `skiff` process: one API
 * server on SQLite, or two on a three-member etcd behind a TCP balancer;
 * controller manager, scheduler, two kubelets on the process runtime (each
 * its own root dir and node name) and a kube-proxy per node in userspace
 * mode on a loopback address of its own (node ports only: cluster IPs
 * would be added to the host's interfaces).
 */
export class SoakCluster {
  readonly components: SupervisedProcess[] = [];
  apiPorts: number[] = [];
  kubeconfig = '';
  nodeNames = ['soak-node-1', 'soak-node-2'];
  /** The storage's data dirs on scratch disks (with `diskFaults`): SQLite's API server, or every etcd member. */
  readonly disks: DiskTarget[] = [];
  private balancer: ApiBalancer | undefined;

  /** `diskFaults`: put the storage's data dirs on scratch disks of their own (needs root), for the disk-full fault. */
  constructor(readonly opts: { dir: string; storage: StorageKind; runId: string; diskFaults?: boolean }) {}

  /** A tmpfs for `target`'s data dir (the dir itself is the mount point). Sizes leave room for a 30-minute run. */
  private scratchDisk(target: SupervisedProcess, dataDir: string, sizeMiB: number): void {
    if (!this.opts.diskFaults) return;
    this.disks.push({ target, disk: ScratchDisk.mount(dataDir, sizeMiB) });
  }

  byKind(kind: SupervisedProcess['kind']): SupervisedProcess[] {
    return this.components.filter((c) => c.kind === kind);
  }

  private skiff(name: string, kind: SupervisedProcess['kind'], args: () => string[], ready: () => Promise<boolean>): SupervisedProcess {
    const p = new SupervisedProcess({ name, kind, logPath: join(this.opts.dir, `${name}.log`), command: () => ({ file: process.execPath, args: [SKIFF, ...args()] }), ready });
    this.components.push(p);
    return p;
  }

  async start(): Promise<void> {
    const { dir, storage } = this.opts;
    let storageFlag = 'sqlite';
    if (storage === 'etcd') {
      const clientPorts = await Promise.all([0, 1, 2].map(() => freePort()));
      const peerPorts = await Promise.all([0, 1, 2].map(() => freePort()));
      const members = etcdMembers({ dir, clientPorts, peerPorts, token: `soak-${this.opts.runId}` });
      this.components.push(...members);
      // etcd keeps up to 5 WAL segments of 64 MiB
      for (const [i, m] of members.entries()) this.scratchDisk(m, join(dir, `etcd-m${i}`), 512);
      for (const m of members) m.start();
      for (const m of members) if (!(await m.waitReady(60_000))) throw new Error(`${m.name} did not start:\n${m.logs()}`);
      storageFlag = `etcd://${clientPorts.map((p) => `127.0.0.1:${p}`).join(',')}`;
    }

    const count = storage === 'etcd' ? 2 : 1;
    this.apiPorts = await Promise.all(Array.from({ length: count }, () => freePort()));
    for (let i = 0; i < count; i++) {
      const dataDir = join(dir, `apiserver-${i}`);
      const port = this.apiPorts[i]!;
      // one CA and service-account key for all: the others start from a copy of the first one's pki
      if (i > 0) await cp(join(dir, 'apiserver-0', 'pki'), join(dataDir, 'pki'), { recursive: true });
      const api = this.skiff(`apiserver-${i}`, 'apiserver', () => ['apiserver', '--data-dir', dataDir, '--bind-address', '127.0.0.1', '--port', String(port), '--storage', storageFlag, '--metric-resolution', '0s'], () => healthy(`https://127.0.0.1:${port}/readyz`));
      if (storage === 'sqlite') this.scratchDisk(api, dataDir, 256);
      api.start();
      if (!(await api.waitReady(120_000))) throw new Error(`apiserver-${i} did not start:\n${api.logs()}`);
    }

    // components reach the API through the balancer when there are several API servers
    const admin = await readFile(join(dir, 'apiserver-0', 'admin.kubeconfig'), 'utf8');
    let apiPort = this.apiPorts[0]!;
    if (count > 1) {
      this.balancer = new ApiBalancer(this.apiPorts);
      apiPort = await this.balancer.start();
    }
    this.kubeconfig = join(dir, 'components.kubeconfig');
    await writeFile(this.kubeconfig, admin.replace(/server: "?https:\/\/[^\s"]+"?/, `server: https://127.0.0.1:${apiPort}`));
    const kc = this.kubeconfig;
    const election = ['--leader-elect-lease-duration', '6', '--leader-elect-renew-deadline', '4', '--leader-elect-retry-period', '1'];

    const cmPort = await freePort();
    this.skiff('controller-manager', 'controller-manager', () => ['controller-manager', '--kubeconfig', kc, '--health-port', String(cmPort), ...election,
      '--local-path-dir', join(dir, 'storage'), '--service-account-private-key-file', join(dir, 'apiserver-0', 'pki', 'sa.key'),
      '--node-monitor-grace-period', '20s'], () => httpHealthy(cmPort));
    const schedPort = await freePort();
    this.skiff('scheduler', 'scheduler', () => ['scheduler', '--kubeconfig', kc, '--health-port', String(schedPort), ...election], () => httpHealthy(schedPort));
    for (const [i, node] of this.nodeNames.entries()) {
      const rootDir = join(dir, node);
      await mkdir(rootDir, { recursive: true });
      const health = await freePort();
      this.skiff(`kubelet-${i + 1}`, 'kubelet', () => ['kubelet', '--container-runtime', 'process', '--kubeconfig', kc, '--node-name', node, '--root-dir', rootDir, '--port', '0', '--health-port', String(health)], () => httpHealthy(health));
      const proxyHealth = await freePort();
      this.skiff(`proxy-${i + 1}`, 'proxy', () => ['proxy', '--kubeconfig', kc, '--proxy-mode', 'userspace', '--no-cluster-ips', '--hostname-override', node,
        '--nodeport-address', `127.0.0.${i + 2}`, '--healthz-bind-address', '127.0.0.1', '--healthz-port', String(proxyHealth), '--metrics-port', '0'], () => httpHealthy(proxyHealth));
    }
    const rest = this.components.filter((c) => c.kind !== 'etcd' && c.kind !== 'apiserver');
    for (const c of rest) c.start();
    for (const c of rest) if (!(await c.waitReady(120_000))) throw new Error(`${c.name} did not start:\n${c.logs()}`);
  }

  /** Every component stopped (SIGTERM, then SIGKILL), control plane last. */
  async stop(): Promise<void> {
    const order: SupervisedProcess['kind'][] = ['proxy', 'kubelet', 'scheduler', 'controller-manager', 'apiserver', 'etcd'];
    for (const kind of order) await Promise.all(this.byKind(kind).map((c) => c.stop()));
    await this.balancer?.stop();
    for (const { disk } of this.disks.splice(0)) disk.unmount();
  }
}
