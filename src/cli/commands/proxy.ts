import { hostname } from 'node:os';
import { Client, loadKubeconfig } from '../../client/rest/index.js';
import { DaemonServer } from '../../base/http/daemon-server.js';
import { MetricsRegistry } from '../../base/metrics/registry.js';
import { proxyMetrics } from '../../proxy/proxy-metrics.js';
import { ProxyServer } from '../../proxy/proxy-server.js';
import { ServiceHealthServer } from '../../proxy/service-health-server.js';
import { InterfaceAddresses, UnboundAddresses } from '../../proxy/service-addresses.js';
import { UserspaceProxier } from '../../proxy/userspace/userspace-proxier.js';
import { IptablesProxier } from '../../proxy/iptables/iptables-proxier.js';
import { ExecIptables } from '../../base/iptables-runner.js';
import { ExecConntrack } from '../../proxy/iptables/conntrack.js';
import { bridgeDetector } from '../../proxy/iptables/iptables-rules.js';
import type { ProxyMode } from '../../proxy/proxy-mode.js';
import type { Logger } from '../../machinery/logger.js';
import { spawnSync } from 'node:child_process';
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

/** The iptables mode works here: root, and an iptables that can read the nat table. */
function iptablesUsable(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = spawnSync('iptables', ['-w', '-t', 'nat', '-S', 'OUTPUT'], { stdio: 'ignore' });
  return !probe.error && probe.status === 0 && !spawnSync('iptables-restore', ['--version'], { stdio: 'ignore' }).error;
}

function chooseMode(flags: FlagValues, logger: Logger, nodeName: string, syncPeriodMs: number): ProxyMode {
  const requested = String(flags['proxy-mode'] ?? '');
  if (requested !== '' && requested !== 'iptables' && requested !== 'userspace') throw new UsageError(`--proxy-mode ${requested} is not supported (iptables or userspace)`);
  const iptables = requested !== 'userspace' && iptablesUsable();
  if (requested === 'iptables' && !iptables) throw new UsageError('--proxy-mode iptables needs root and iptables');
  if (iptables) {
    const detect = String(flags['detect-local-mode']);
    if (detect !== 'BridgeInterface' && detect !== 'None') throw new UsageError(`--detect-local-mode ${detect} is not supported (BridgeInterface or None)`);
    const addresses = String(flags['nodeport-addresses'] ?? '').split(',').map((a) => a.trim()).filter(Boolean);
    return new IptablesProxier({
      iptables: new ExecIptables(),
      conntrack: new ExecConntrack(),
      nodeName,
      localDetector: detect === 'BridgeInterface' ? bridgeDetector(String(flags['pod-bridge-interface'])) : undefined,
      masqueradeAll: Boolean(flags['masquerade-all']),
      nodePortAddresses: addresses.length > 0 ? addresses : undefined,
      localhostNodePorts: String(flags['iptables-localhost-nodeports']) !== 'false',
      fullSyncPeriodMs: syncPeriodMs,
      logger,
    });
  }
  if (requested === '') logger.info('iptables mode unavailable (needs root and iptables); using the userspace mode');
  const root = process.getuid?.() === 0;
  const addresses = root && !flags['no-cluster-ips'] ? new InterfaceAddresses(logger) : new UnboundAddresses(logger);
  if (!root) logger.warn('not running as root: only node ports (and 127.x cluster IPs) are served');
  return new UserspaceProxier({ addresses, nodeName, nodePortAddress: String(flags['nodeport-address']), logger });
}

export const command: ComponentCommand = {
  name: 'proxy',
  summary: 'Run kube-proxy: route service cluster IPs, node ports and external IPs to ready endpoints (iptables or userspace mode).',
  serverOrder: 50,
  flags: {
    'oom-score-adj': { type: 'string', default: String(NODE_DAEMON_OOM_SCORE_ADJ), description: 'the oom_score_adj of this process, in [-1000, 1000] (upstream: -999)' },
    kubeconfig: { type: 'string', default: '', description: 'kubeconfig of the API server (inside skiff server: the admin kubeconfig)' },
    'proxy-mode': { type: 'string', default: '', description: 'how to route: iptables (NAT rules; the default as root with iptables) or userspace (a forwarder per service port)' },
    'masquerade-all': { type: 'boolean', default: false, description: 'iptables: SNAT all traffic to cluster IPs' },
    'detect-local-mode': { type: 'string', default: 'BridgeInterface', description: 'iptables: how pod traffic is told apart (BridgeInterface or None)' },
    'pod-bridge-interface': { type: 'string', default: 'skiff0', description: 'iptables: the pods\' bridge, for --detect-local-mode BridgeInterface' },
    'nodeport-addresses': { type: 'string', default: '', description: 'iptables: comma-separated node addresses node ports answer on (default: all local addresses)' },
    'iptables-localhost-nodeports': { type: 'string', default: 'true', description: 'iptables: node ports also on 127.0.0.1 (sets route_localnet)' },
    'hostname-override': { type: 'string', default: '', description: 'this node\'s name, for Local traffic policies (default: the hostname)' },
    'nodeport-address': { type: 'string', default: '0.0.0.0', description: 'userspace: address node ports listen on' },
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
    const inServer = ctx.server !== undefined;
    const nodeName = (String(flags['hostname-override'] ?? '') || hostname()).toLowerCase();

    const client = new Client(loadKubeconfig(kubeconfig), { component: 'kube-proxy', qps: 50, burst: 100 });
    const registry = new MetricsRegistry();
    const syncPeriodMs = seconds(flags, 'sync-period') || 30_000;
    const mode = chooseMode(flags, logger, nodeName, syncPeriodMs);
    const healthAddresses = String(flags['nodeport-addresses'] ?? '').split(',').map((a) => a.trim()).filter(Boolean);
    const serviceHealth = new ServiceHealthServer({
      nodeName,
      addresses: healthAddresses.length > 0 ? healthAddresses : undefined,
      proxyHealthy: () => {
        try {
          proxy.healthy();
          return true;
        } catch {
          return false;
        }
      },
      logger,
    });
    const proxy: ProxyServer = new ProxyServer({
      serviceHealth,
      client,
      mode,
      logger,
      metrics: proxyMetrics(registry),
      minSyncPeriodMs: seconds(flags, 'min-sync-period'),
      syncPeriodMs,
    });
    const readiness = { 'proxy-rules': () => proxy.healthy() };
    const healthz = new DaemonServer({ bindAddress: String(flags['healthz-bind-address']), port: port(flags, 'healthz-port', DEFAULT_HEALTHZ_PORT, inServer), metrics: registry, readiness });
    const metrics = new DaemonServer({ bindAddress: String(flags['metrics-bind-address']), port: port(flags, 'metrics-port', DEFAULT_METRICS_PORT, inServer), metrics: registry, readiness });
    const healthzPort = await healthz.start();
    try {
      const metricsPort = await metrics.start();
      logger.info('kube-proxy starting', { mode: mode.name, node: nodeName, healthzPort, metricsPort, clusterIPs: mode.name === 'iptables' || (process.getuid?.() === 0 && !flags['no-cluster-ips']) });
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
