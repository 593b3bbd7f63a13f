import { hostname } from 'node:os';
import { join } from 'node:path';
import type { CommandContext, ComponentCommand, FlagValues } from '../command.js';
import { DEFAULT_CONTROLLER_CONFIG, type ControllerConfig } from '../../controllers/controller-descriptor.js';
import { InvalidDurationError, parseDuration } from '../../machinery/duration.js';
import { CLIENT_FLAGS, clientFromFlags, componentKubeconfig, healthFlags, healthPort, LEADER_GAUGE, leaderElectionFlags, runWhileLeading } from '../component-runtime.js';
import { UsageError } from '../flags.js';
import { DaemonServer } from '../../base/http/daemon-server.js';
import { MetricsRegistry } from '../../base/metrics/registry.js';
import { CONTROLLERS } from '../../controllers/registry.js';
import { selectControllers, UnknownControllerError } from '../../controllers/controller-selection.js';
import { runControllers } from '../../controllers/run-controllers.js';
import { CidrError, CidrSet } from '../../controllers/nodeipam/cidr-set.js';
import { CONTROLLER_SERVICE_ACCOUNTS, ServiceAccountCredentials } from '../../controllers/service-account-credentials.js';
import { loadKubeconfig, type Client } from '../../client/rest/index.js';
import type { Logger } from '../../machinery/logger.js';
import { realClock } from '../../base/clock.js';

/** Retries a start-up call (the API server may still be coming up) until it works or the signal aborts. */
async function withRetries<T>(fn: () => Promise<T>, signal: AbortSignal, logger: Logger): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (signal.aborted || attempt >= 30) throw err;
      logger.warn('getting controller credentials failed; retrying', { error: err instanceof Error ? err.message : String(err) });
      await realClock.sleep(Math.min(5000, 200 * 2 ** attempt), signal);
    }
  }
}

function durationFlag(flags: FlagValues, name: string): number {
  try {
    return parseDuration(String(flags[name]));
  } catch (err) {
    if (err instanceof InvalidDurationError) throw new UsageError(`invalid --${name}: ${err.message}`);
    throw err;
  }
}

function numberFlag(flags: FlagValues, name: string): number {
  const n = Number(flags[name]);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`invalid --${name} ${JSON.stringify(flags[name])}, want a number >= 0`);
  return n;
}

function boolFlag(flags: FlagValues, name: string): boolean {
  const v = String(flags[name]);
  if (v !== 'true' && v !== 'false') throw new UsageError(`invalid --${name} ${JSON.stringify(v)}, want true or false`);
  return v === 'true';
}

function cidrFlags(config: ControllerConfig): void {
  try {
    new CidrSet(config.clusterCidr, config.nodeCidrMaskSize);
  } catch (err) {
    if (err instanceof CidrError) throw new UsageError(`--cluster-cidr/--node-cidr-mask-size: ${err.message}`);
    throw err;
  }
}

function controllerConfigFromFlags(flags: FlagValues, ctx: CommandContext): ControllerConfig {
  // inside skiff server the cluster CA signs, as kubeadm points the controller manager at it
  const pki = ctx.server ? join(ctx.server.dataDir, 'pki') : undefined;
  return {
    clusterSigningCertFile: String(flags['cluster-signing-cert-file'] || (pki ? join(pki, 'ca.crt') : '')),
    clusterSigningKeyFile: String(flags['cluster-signing-key-file'] || (pki ? join(pki, 'ca.key') : '')),
    clusterSigningDurationMs: durationFlag(flags, 'cluster-signing-duration'),
    serviceAccountPrivateKeyFile: String(flags['service-account-private-key-file'] || (pki ? join(pki, 'sa.key') : '')),
    nodeMonitorPeriodMs: durationFlag(flags, 'node-monitor-period'),
    nodeMonitorGracePeriodMs: durationFlag(flags, 'node-monitor-grace-period'),
    nodeStartupGracePeriodMs: durationFlag(flags, 'node-startup-grace-period'),
    nodeEvictionRate: numberFlag(flags, 'node-eviction-rate'),
    secondaryNodeEvictionRate: numberFlag(flags, 'secondary-node-eviction-rate'),
    largeClusterSizeThreshold: numberFlag(flags, 'large-cluster-size-threshold'),
    unhealthyZoneThreshold: numberFlag(flags, 'unhealthy-zone-threshold'),
    terminatedPodGCThreshold: numberFlag(flags, 'terminated-pod-gc-threshold'),
    allocateNodeCidrs: boolFlag(flags, 'allocate-node-cidrs'),
    clusterCidr: String(flags['cluster-cidr']),
    nodeCidrMaskSize: numberFlag(flags, 'node-cidr-mask-size'),
    // inside skiff server volumes live under its data dir, as k3s keeps them under its own
    localPathDir: String(flags['local-path-dir'] || (ctx.server ? join(ctx.server.dataDir, 'storage') : DEFAULT_CONTROLLER_CONFIG.localPathDir)),
    localPathHelperImage: String(flags['local-path-helper-image']),
    hpaSyncPeriodMs: durationFlag(flags, 'horizontal-pod-autoscaler-sync-period'),
    hpaTolerance: numberFlag(flags, 'horizontal-pod-autoscaler-tolerance'),
    hpaDownscaleStabilizationMs: durationFlag(flags, 'horizontal-pod-autoscaler-downscale-stabilization'),
    hpaCpuInitializationPeriodMs: durationFlag(flags, 'horizontal-pod-autoscaler-cpu-initialization-period'),
    hpaInitialReadinessDelayMs: durationFlag(flags, 'horizontal-pod-autoscaler-initial-readiness-delay'),
  };
}

/** kube-controller-manager's secure port; here plain HTTP for health and metrics. */
const DEFAULT_HEALTH_PORT = 10257;

export const command: ComponentCommand = {
  name: 'controller-manager',
  summary: 'Run the controllers (Deployment, ReplicaSet, garbage collector, namespace, …) with leader election.',
  serverOrder: 30,
  flags: {
    ...CLIENT_FLAGS,
    controllers: { type: 'string', default: '*', description: 'comma-separated controllers: "*" all on by default, "foo" enables foo, "-foo" disables foo' },
    'node-monitor-period': { type: 'string', default: '5s', description: 'how often the node lifecycle controller checks node health' },
    'node-monitor-grace-period': { type: 'string', default: '40s', description: 'how long a node may go without a heartbeat before it is marked Ready=Unknown' },
    'node-startup-grace-period': { type: 'string', default: '1m0s', description: 'the same for a node that never posted its status' },
    'node-eviction-rate': { type: 'string', default: '0.1', description: 'nodes per second per zone whose pods may be evicted (NoExecute taints added)' },
    'secondary-node-eviction-rate': { type: 'string', default: '0.01', description: 'that rate in a partially disrupted zone larger than --large-cluster-size-threshold' },
    'large-cluster-size-threshold': { type: 'string', default: '50', description: 'zones with more nodes keep evicting at the secondary rate when partially disrupted' },
    'unhealthy-zone-threshold': { type: 'string', default: '0.55', description: 'share of not-ready nodes (at least 3) that makes a zone partially disrupted' },
    'terminated-pod-gc-threshold': { type: 'string', default: '12500', description: 'terminated pods kept before the pod garbage collector deletes the oldest (0: no limit)' },
    'allocate-node-cidrs': { type: 'string', default: 'true', description: 'give each node a spec.podCIDR from --cluster-cidr (node IPAM controller)' },
    'cluster-cidr': { type: 'string', default: '10.42.0.0/16', description: 'the range node pod CIDRs are allocated from' },
    'node-cidr-mask-size': { type: 'string', default: '24', description: 'prefix length of each node\'s pod CIDR' },
    'cluster-signing-cert-file': { type: 'string', default: '', description: 'CA certificate the csrsigning controller signs with (inside skiff server: the cluster CA)' },
    'cluster-signing-key-file': { type: 'string', default: '', description: 'its private key' },
    'cluster-signing-duration': { type: 'string', default: '8760h0m0s', description: 'longest validity of a certificate the csrsigning controller issues' },
    'service-account-private-key-file': { type: 'string', default: '', description: 'key the serviceaccount-token controller signs legacy tokens with (inside skiff server: the API server\'s pki/sa.key)' },
    'local-path-dir': { type: 'string', default: '', description: 'where the local-path provisioner puts volumes on each node (inside skiff server: <data-dir>/storage; else /var/lib/skiff/storage)' },
    'local-path-helper-image': { type: 'string', default: 'docker.io/library/busybox:1.36', description: 'image of the local-path provisioner\'s helper pods (they remove volume directories on the node)' },
    'horizontal-pod-autoscaler-sync-period': { type: 'string', default: '15s', description: 'how often the HPA controller evaluates each HorizontalPodAutoscaler' },
    'horizontal-pod-autoscaler-tolerance': { type: 'string', default: '0.1', description: 'the HPA leaves the replicas alone while usage/target is within 1 ± this' },
    'horizontal-pod-autoscaler-downscale-stabilization': { type: 'string', default: '5m0s', description: 'the HPA scales down to the highest recommendation of this window (when behavior sets none)' },
    'horizontal-pod-autoscaler-cpu-initialization-period': { type: 'string', default: '5m0s', description: 'after a pod starts, cpu samples from before its readiness are skipped this long' },
    'horizontal-pod-autoscaler-initial-readiness-delay': { type: 'string', default: '30s', description: 'after a pod starts, readiness changes are treated as its initial readiness this long' },
    'use-service-account-credentials': { type: 'string', default: '', description: 'each controller acts as its own kube-system service account (default: true inside skiff server, false standalone)' },
    ...leaderElectionFlags('kube-system/kube-controller-manager'),
    ...healthFlags(DEFAULT_HEALTH_PORT),
  },

  async run(flags, ctx) {
    const logger = ctx.logger;
    let selected;
    try {
      selected = selectControllers(CONTROLLERS, String(flags.controllers).split(','));
    } catch (err) {
      if (err instanceof UnknownControllerError) throw new UsageError(err.message);
      throw err;
    }
    const config = controllerConfigFromFlags(flags, ctx);
    if (config.allocateNodeCidrs) cidrFlags(config);
    const kubeconfig = await componentKubeconfig(flags, ctx, { file: 'controller-manager', user: 'system:kube-controller-manager' });
    const client = clientFromFlags(flags, kubeconfig, 'controller-manager');
    const useSA = String(flags['use-service-account-credentials'] || (ctx.server ? 'true' : 'false'));
    if (useSA !== 'true' && useSA !== 'false') throw new UsageError(`invalid --use-service-account-credentials ${JSON.stringify(useSA)}, want true or false`);
    const metrics = new MetricsRegistry();
    const leaderGauge = metrics.gauge(...LEADER_GAUGE);
    const daemon = new DaemonServer({ bindAddress: String(flags['bind-address']), port: healthPort(flags, ctx, DEFAULT_HEALTH_PORT), metrics });
    const port = await daemon.start();
    logger.info('controller manager started', { healthPort: port, controllers: selected.map((c) => c.name) });
    // each controller writes through its own client and rate limit, as upstream's client builder gives them;
    // with service-account credentials each also acts as its own kube-system service account
    const base = { ...loadKubeconfig(kubeconfig), qps: Number(flags['kube-api-qps']), burst: Number(flags['kube-api-burst']) };
    const credentials = useSA === 'true' ? new ServiceAccountCredentials({ client, base, logger }) : undefined;
    const clients = new Map<string, Client>();
    for (const c of selected) {
      const sa = CONTROLLER_SERVICE_ACCOUNTS[c.name];
      const component = `controller-manager/${c.name}`;
      clients.set(c.name, credentials && sa ? await withRetries(() => credentials.clientFor(sa, component, ctx.signal), ctx.signal, logger) : clientFromFlags(flags, kubeconfig, component));
    }
    const run = (signal: AbortSignal) => runControllers({ client, clientFor: (name) => clients.get(name) ?? client, controllers: selected, logger, metrics, host: hostname(), config }, signal);
    try {
      const lease = { namespace: 'kube-system', name: 'kube-controller-manager' };
      await runWhileLeading({ flags, client, lease, logger, gauge: leaderGauge, signal: ctx.signal, lead: run });
    } finally {
      await daemon.stop();
      client.close();
      for (const c of clients.values()) c.close();
      await credentials?.stopped();
    }
  },
};
