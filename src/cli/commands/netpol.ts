import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { DaemonServer } from '../../base/http/daemon-server.js';
import { ExecIptables } from '../../base/iptables-runner.js';
import { MetricsRegistry } from '../../base/metrics/registry.js';
import { Client, loadKubeconfig } from '../../client/rest/index.js';
import { IptablesEnforcer } from '../../netpol/iptables-enforcer.js';
import { NetworkPolicyController, networkPolicyMetrics } from '../../netpol/network-policy-controller.js';
import type { ComponentCommand } from '../command.js';
import { componentKubeconfig, healthFlags, healthPort } from '../component-runtime.js';
import { UsageError } from '../flags.js';

/** kube-router's health port. */
const DEFAULT_HEALTH_PORT = 20244;

/** Enforcing works here: root, and an iptables that can read and restore the filter table. */
function iptablesUsable(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = spawnSync('iptables', ['-w', '-t', 'filter', '-S', 'FORWARD'], { stdio: 'ignore' });
  return !probe.error && probe.status === 0 && !spawnSync('iptables-restore', ['--version'], { stdio: 'ignore' }).error;
}

export const command: ComponentCommand = {
  name: 'netpol',
  summary: 'Run the network policy controller: enforce NetworkPolicies for this node\'s pods in iptables (as kube-router and k3s do).',
  serverOrder: 52,
  flags: {
    kubeconfig: { type: 'string', default: '', description: 'kubeconfig of the API server (inside skiff server: one for system:kube-router)' },
    // (not --hostname-override: skiff server forwards a flag only to the one component declaring it, and kube-proxy has that one)
    'node-name-override': { type: 'string', default: '', description: 'this node\'s name, whose pods on its spec.podCIDRs are enforced (default: the hostname)' },
    'iptables-sync-period': { type: 'string', default: '300', description: 'seconds between full resyncs without changes (kube-router\'s default: 5m)' },
    ...healthFlags(DEFAULT_HEALTH_PORT),
  },

  async run(flags, ctx) {
    const logger = ctx.logger;
    const syncPeriod = Number(String(flags['iptables-sync-period']).replace(/s$/, ''));
    if (!Number.isFinite(syncPeriod) || syncPeriod <= 0) throw new UsageError('--iptables-sync-period must be a positive number of seconds');
    if (!iptablesUsable()) {
      // inside skiff server a non-root node simply has no policy enforcement, as the userspace proxy has no iptables
      if (ctx.server) {
        logger.info('network policies are not enforced: needs root and iptables');
        return;
      }
      throw new UsageError('skiff netpol needs root and iptables');
    }
    const kubeconfig = await componentKubeconfig(flags, ctx, { file: 'kube-router', user: 'system:kube-router' });
    const nodeName = (String(flags['node-name-override'] ?? '') || hostname()).toLowerCase();
    const client = new Client(loadKubeconfig(kubeconfig), { component: 'kube-router', qps: 50, burst: 100 });
    const registry = new MetricsRegistry();
    const controller = new NetworkPolicyController({
      client,
      enforcer: new IptablesEnforcer({ iptables: new ExecIptables(), logger }),
      nodeName,
      logger,
      metrics: networkPolicyMetrics(registry),
      syncPeriodMs: syncPeriod * 1000,
    });
    const health = new DaemonServer({ bindAddress: String(flags['bind-address']), port: healthPort(flags, ctx, DEFAULT_HEALTH_PORT), metrics: registry, readiness: { 'network-policy-rules': () => controller.healthy() } });
    const port = await health.start();
    try {
      logger.info('network policy controller starting', { node: nodeName, healthPort: port });
      await controller.run(ctx.signal);
    } finally {
      await health.stop();
      client.close();
    }
  },
};
