import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One etcd process of a test cluster. */
export interface EtcdMember {
  name: string;
  clientUrl: string;
  process: ChildProcess | undefined;
  logs(): string;
}

export interface EtcdCluster {
  members: EtcdMember[];
  /** Client URLs of every member. */
  endpoints: string[];
  /** The `--storage` value for skiff: etcd://host:port,… */
  storageUrl: string;
  /** SIGKILLs one member and waits for it to exit. */
  kill(index: number): Promise<void>;
  stop(): Promise<void>;
}

/** Why etcd cannot run here, or undefined when the `etcd` binary is on PATH. */
export function etcdMissingReason(): string | undefined {
  const probe = spawnSync('etcd', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    return 'the etcd binary is not installed (apt-get install -y etcd-server etcd-client; .ci/run installs it)';
  }
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts an etcd cluster of `size` members on loopback ports in a temp dir
 * (fast elections, so killing the leader costs well under a second) and
 * resolves once every member reports healthy. Throws with a clear message
 * when etcd is not installed.
 */
export async function startEtcdCluster(opts: { size?: number; timeoutMs?: number; /** more etcd flags for every member, e.g. --quota-backend-bytes */ args?: string[] } = {}): Promise<EtcdCluster> {
  const missing = etcdMissingReason();
  if (missing) throw new Error(`cannot start etcd: ${missing}`);
  const size = opts.size ?? 1;
  const dir = await mkdtemp(join(tmpdir(), 'skiff-etcd-'));
  const ports = await Promise.all(Array.from({ length: size * 2 }, () => freePort()));
  const names = Array.from({ length: size }, (_, i) => `m${i}`);
  const peerUrl = (i: number) => `http://127.0.0.1:${ports[size + i]}`;
  const initialCluster = names.map((name, i) => `${name}=${peerUrl(i)}`).join(',');
  const members: EtcdMember[] = names.map((name, i) => {
    const clientUrl = `http://127.0.0.1:${ports[i]}`;
    const child = spawn('etcd', [
      '--name', name,
      '--data-dir', join(dir, name),
      '--listen-client-urls', clientUrl,
      '--advertise-client-urls', clientUrl,
      '--listen-peer-urls', peerUrl(i),
      '--initial-advertise-peer-urls', peerUrl(i),
      '--initial-cluster', initialCluster,
      '--initial-cluster-state', 'new',
      '--initial-cluster-token', `skiff-test-${process.pid}`,
      '--heartbeat-interval', '50',
      '--election-timeout', '500',
      '--logger', 'zap',
      '--log-level', 'warn',
      ...(opts.args ?? []),
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-20_000);
    });
    return { name, clientUrl, process: child, logs: () => stderr };
  });
  const cluster: EtcdCluster = {
    members,
    endpoints: members.map((m) => m.clientUrl),
    storageUrl: `etcd://${members.map((m) => m.clientUrl.replace('http://', '')).join(',')}`,
    async kill(index) {
      const member = members[index]!;
      const child = member.process;
      member.process = undefined;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      await Promise.all(members.map((_, i) => cluster.kill(i)));
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitHealthy(members, opts.timeoutMs ?? 20_000);
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

async function waitHealthy(members: EtcdMember[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const member of members) {
    for (;;) {
      const child = member.process;
      if (!child || child.exitCode !== null) throw new Error(`etcd member ${member.name} exited:\n${member.logs()}`);
      try {
        const response = await fetch(`${member.clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
        const body = (await response.json()) as { health?: string };
        if (body.health === 'true') break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`etcd member ${member.name} did not become healthy in ${timeoutMs} ms:\n${member.logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
