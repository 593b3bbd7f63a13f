import { join } from 'node:path';
import { SupervisedProcess } from './supervised-process.js';

/**
 * A three-member etcd on loopback as supervised processes: a member killed
 * with SIGKILL restarts from its data dir (etcd ignores the initial-cluster
 * flags once it has data), so the soak can kill one member at a time.
 * Fast elections as in src/storage/etcd/testing/etcd-cluster.ts.
 */
export function etcdMembers(opts: { dir: string; clientPorts: number[]; peerPorts: number[]; token: string }): SupervisedProcess[] {
  const names = opts.clientPorts.map((_, i) => `m${i}`);
  const peerUrl = (i: number) => `http://127.0.0.1:${opts.peerPorts[i]}`;
  const initialCluster = names.map((name, i) => `${name}=${peerUrl(i)}`).join(',');
  return names.map((name, i) => {
    const clientUrl = `http://127.0.0.1:${opts.clientPorts[i]}`;
    return new SupervisedProcess({
      name: `etcd-${name}`,
      kind: 'etcd',
      logPath: join(opts.dir, `etcd-${name}.log`),
      command: () => ({
        file: 'etcd',
        args: [
          '--name', name,
          '--data-dir', join(opts.dir, `etcd-${name}`),
          '--listen-client-urls', clientUrl,
          '--advertise-client-urls', clientUrl,
          '--listen-peer-urls', peerUrl(i),
          '--initial-advertise-peer-urls', peerUrl(i),
          '--initial-cluster', initialCluster,
          '--initial-cluster-state', 'new',
          '--initial-cluster-token', opts.token,
          '--heartbeat-interval', '100',
          '--election-timeout', '1000',
          '--logger', 'zap',
          '--log-level', 'warn',
        ],
      }),
      ready: async () => {
        const response = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
        return ((await response.json()) as { health?: string }).health === 'true';
      },
    });
  });
}
