import { hostname } from 'node:os';
import { Client, loadKubeconfig } from '../../client/rest/index.js';
import { DaemonServer } from '../../base/http/daemon-server.js';
import { MetricsRegistry } from '../../base/metrics/registry.js';
import { proxyMetrics } from '../../proxy/proxy-metrics.js';
import { ProxyServer } from '../../proxy/proxy-server.js';
import { InterfaceAddresses, UnboundAddresses } from '../../proxy/service-addresses.js';
import { UserspaceProxier } from '../../proxy/userspace/userspace-proxier.js';
import type { ComponentCommand, FlagValues } from '../command.js';
import { UsageError } from '../flags.js';
import { NODE_DAEMON_OOM_SCORE_ADJ } from '../../base/oom-score.js';
import { applyOomScoreAdj } from '../oom-score-flag.js';
import { componentKubeconfig } from '../component-runtime.js';

/** Upstream kube-proxy's ports: healthz 10256, metrics 10249. */
const DEFAULT_HEALTHZ_PORT = 10256;
const DEFAULT_METRICS_PORT = 10249;

function seconds(flags: FlagValues, name: string): number {
  const v = Number(String(flags[name]).replace(/s$/, ''));
  if (!Number.isFinite(v) || v < 0) throw new UsageError(`--${name} must be a number of seconds`);
  return v * 1000;
}

function port(flags: FlagValues, name: string, standalone: number, inServer: boolean): number {
  const raw = String(flags[name] ?? '');
  if (raw === '') return inServer ? 0 : standalone;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 0 || v > 65535) throw new UsageError(`--${name} must be a port number`);
  return v;
}

export const command: ComponentCommand = {
  name: 'proxy',
  summary: 'Run kube-proxy: route connections to service cluster IPs and node ports to ready endpoints, round-robin.',
  serverOrder: 50,
  flags: {
    'oom-score-adj': { type: 'string', default: String(NODE_DAEMON_OOM_SCORE_ADJ), description: 'the oom_score_adj of this process, in [-1000, 1000] (upstream: -999)' },
    kubeconfig: { type: 'string', default: '', description: 'kubeconfig of the API server (inside skiff server: the admin kubeconfig)' },
    'proxy-mode': { type: 'string', default: 'userspace', description: 'how to route: userspace (a forwarder per service port)' },
    'hostname-override': { type: 'string', default: '', description: 'this node\'s name, for Local traffic policies (default: the hostname)' },
    'nodeport-address': { type: 'string', default: '0.0.0.0', description: 'address node ports listen on' },
    'no-cluster-ips': { type: 'boolean', default: false, description: 'do not serve cluster IPs even as root (node ports only)' },
    'healthz-bind-address': { type: 'string', default: '0.0.0.0', description: 'address of /healthz' },
    'healthz-port': { type: 'string', default: '', description: `port of /healthz (default ${DEFAULT_HEALTHZ_PORT}; 0 inside skiff server)` },
    'metrics-bind-address': { type: 'string', default: '127.0.0.1', description: 'address of /metrics' },
    'metrics-port': { type: 'string', default: '', description: `port of /metrics (default ${DEFAULT_METRICS_PORT}; 0 inside skiff server)` },
    'min-sync-period': { type: 'string', default: '0', description: 'seconds between syncs at least, to coalesce bursts of changes' },
    'sync-period': { type: 'string', default: '30', description: 'seconds between full resyncs (retries listeners that failed)' },
  },

  async run(flags, ctx) {
    const logger = ctx.logger;
    applyOomScoreAdj(String(flags['oom-score-adj'] ?? NODE_DAEMON_OOM_SCORE_ADJ), logger);
    const kubeconfig = await componentKubeconfig(flags, ctx, { file: 'kube-proxy', user: 'system:kube-proxy' });
    if (flags['proxy-mode'] !== 'userspace') throw new UsageError(`--proxy-mode ${String(flags['proxy-mode'])} is not supported (only userspace)`);
    const inServer = ctx.server !== undefined;
    const nodeName = (String(flags['hostname-override'] ?? '') || hostname()).toLowerCase();
    const root = process.getuid?.() === 0;
    const addresses = root && !flags['no-cluster-ips'] ? new InterfaceAddresses(logger) : new UnboundAddresses(logger);
    if (!root) logger.warn('not running as root: only node ports (and 127.x cluster IPs) are served');

    const client = new Client(loadKubeconfig(kubeconfig), { component: 'kube-proxy', qps: 50, burst: 100 });
    const registry = new MetricsRegistry();
    const mode = new UserspaceProxier({ addresses, nodeName, nodePortAddress: String(flags['nodeport-address']), logger });
    const proxy = new ProxyServer({
      client,
      mode,
      logger,
      metrics: proxyMetrics(registry),
      minSyncPeriodMs: seconds(flags, 'min-sync-period'),
      syncPeriodMs: seconds(flags, 'sync-period') || 30_000,
    });
    const readiness = { 'proxy-rules': () => proxy.healthy() };
    const healthz = new DaemonServer({ bindAddress: String(flags['healthz-bind-address']), port: port(flags, 'healthz-port', DEFAULT_HEALTHZ_PORT, inServer), metrics: registry, readiness });
    const metrics = new DaemonServer({ bindAddress: String(flags['metrics-bind-address']), port: port(flags, 'metrics-port', DEFAULT_METRICS_PORT, inServer), metrics: registry, readiness });
    const healthzPort = await healthz.start();
    try {
      const metricsPort = await metrics.start();
      logger.info('kube-proxy starting', { mode: mode.name, node: nodeName, healthzPort, metricsPort, clusterIPs: root && !flags['no-cluster-ips'] });
      try {
        await proxy.run(ctx.signal);
      } finally {
        await metrics.stop();
      }
    } finally {
      await healthz.stop();
      client.close();
    }
  },
};
