import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { DaemonServer } from '../../base/http/daemon-server.js';
import { ExecIptables } from '../../base/iptables-runner.js';
import { MetricsRegistry } from '../../base/metrics/registry.js';
import { Client, loadKubeconfig } from '../../client/rest/index.js';
import { PodNetworkController } from '../../podnet/pod-network-controller.js';
import { ExecRouteTable } from '../../podnet/route-table.js';
import type { ComponentCommand } from '../command.js';
import { componentKubeconfig, healthFlags, healthPort } from '../component-runtime.js';
import { UsageError } from '../flags.js';

/** The health port (flannel's healthz port is off by default; this is free among upstream's). */
const DEFAULT_HEALTH_PORT = 11259;

const CIDR = /^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/;

export const command: ComponentCommand = {
  name: 'podnet',
  summary: 'Route pod traffic between nodes (flannel\'s host-gw: a route to each other node\'s pod CIDR through its InternalIP); run on every node of a cluster on several hosts.',
  flags: {
    kubeconfig: { type: 'string', default: '', description: 'kubeconfig of the API server (needs to list and watch Nodes)' },
    'hostname-override': { type: 'string', default: '', description: 'this node\'s name (default: the hostname)' },
    backend: { type: 'string', default: 'host-gw', description: 'how pod traffic crosses nodes: host-gw (routes; the nodes share a link). vxlan is not implemented yet' },
    'cluster-cidr': { type: 'string', default: '10.42.0.0/16', description: 'the range of all pods\' addresses (the controller manager\'s --cluster-cidr): traffic inside it is not masqueraded' },
    'ip-masq': { type: 'boolean', default: true, description: 'masquerade pod traffic leaving the cluster CIDR, and keep pod-to-pod traffic un-NATed (flannel\'s --ip-masq)' },
    'resync-period': { type: 'string', default: '60', description: 'seconds between checks of the routes without changes' },
    ...healthFlags(DEFAULT_HEALTH_PORT),
  },

  async run(flags, ctx) {
    const logger = ctx.logger;
    const backend = String(flags.backend);
    if (backend !== 'host-gw') throw new UsageError(`--backend ${backend} is not supported (host-gw)`);
    const clusterCIDR = String(flags['cluster-cidr']);
    if (!CIDR.test(clusterCIDR)) throw new UsageError(`invalid --cluster-cidr ${JSON.stringify(clusterCIDR)}, want an IPv4 CIDR such as 10.42.0.0/16`);
    const resync = Number(String(flags['resync-period']).replace(/s$/, ''));
    if (!Number.isFinite(resync) || resync <= 0) throw new UsageError('--resync-period must be a positive number of seconds');
    if (process.getuid?.() !== 0 || spawnSync('ip', ['-V'], { stdio: 'ignore' }).error) throw new UsageError('skiff podnet needs root and iproute2 (ip)');
    const kubeconfig = await componentKubeconfig(flags, ctx, { file: 'podnet', user: 'system:podnet' });
    const nodeName = (String(flags['hostname-override'] ?? '') || hostname()).toLowerCase();
    const client = new Client(loadKubeconfig(kubeconfig), { component: 'podnet', qps: 20, burst: 40 });
    const controller = new PodNetworkController({
      client,
      routes: new ExecRouteTable(),
      iptables: flags['ip-masq'] === false ? undefined : new ExecIptables(),
      clusterCIDR,
      nodeName,
      logger,
      resyncPeriodMs: resync * 1000,
    });
    const health = new DaemonServer({ bindAddress: String(flags['bind-address']), port: healthPort(flags, ctx, DEFAULT_HEALTH_PORT), metrics: new MetricsRegistry(), readiness: { 'pod-routes': () => controller.healthy() } });
    const port = await health.start();
    try {
      logger.info('pod network starting', { node: nodeName, backend, clusterCIDR, healthPort: port });
      await controller.run(ctx.signal);
    } finally {
      await health.stop();
      client.close();
    }
  },
};
