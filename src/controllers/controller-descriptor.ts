import type { Client } from '../client/rest/client.js';
import type { SharedInformerFactory } from '../client/cache/shared-informer-factory.js';
import type { EventRecorder } from '../client/events/event-recorder.js';
import type { Logger } from '../machinery/logger.js';
import type { Clock } from '../base/clock.js';
import type { MetricsRegistry } from '../base/metrics/registry.js';

/** Makes an event recorder reporting as `component` (e.g. `deployment-controller`). */
export type EventRecorderFactory = (component: string) => EventRecorder;

/** Tunables of kube-controller-manager's flags that controllers read (upstream's defaults). */
export interface ControllerConfig {
  /** `--node-monitor-period`: how often the node lifecycle controller checks nodes. */
  nodeMonitorPeriodMs: number;
  /** `--node-monitor-grace-period`: a node silent this long turns Ready=Unknown. */
  nodeMonitorGracePeriodMs: number;
  /** `--node-startup-grace-period`: the same for a node that never posted status. */
  nodeStartupGracePeriodMs: number;
  /** `--node-eviction-rate`: nodes per second per zone whose pods may be evicted. */
  nodeEvictionRate: number;
  /** `--secondary-node-eviction-rate`: the rate in a partially disrupted large zone. */
  secondaryNodeEvictionRate: number;
  /** `--large-cluster-size-threshold`: zones bigger than this keep evicting at the secondary rate. */
  largeClusterSizeThreshold: number;
  /** `--unhealthy-zone-threshold`: the share of not-ready nodes that makes a zone partially disrupted. */
  unhealthyZoneThreshold: number;
  /** `--terminated-pod-gc-threshold`: terminated pods kept before the pod GC deletes the oldest. */
  terminatedPodGCThreshold: number;
  /** `--allocate-node-cidrs`: the node IPAM controller gives each node a `spec.podCIDR` (on by default, as k3s). */
  allocateNodeCidrs: boolean;
  /** `--cluster-cidr`: the range node pod CIDRs come from (k3s's default). */
  clusterCidr: string;
  /** `--node-cidr-mask-size`: the prefix length of each node's pod CIDR. */
  nodeCidrMaskSize: number;
  /** `--cluster-signing-cert-file`/`--cluster-signing-key-file`: the CA the csrsigning controller signs with ('' : it does not sign). */
  clusterSigningCertFile: string;
  clusterSigningKeyFile: string;
  /** `--cluster-signing-duration`: the longest certificate it issues. */
  clusterSigningDurationMs: number;
  /** `--local-path-dir`: the directory on each node the local-path provisioner makes volumes in. */
  localPathDir: string;
  /** `--local-path-helper-image`: the image of its helper pods (the process runtime ignores it). */
  localPathHelperImage: string;
  /** `--horizontal-pod-autoscaler-sync-period`: how often each HorizontalPodAutoscaler is evaluated. */
  hpaSyncPeriodMs: number;
  /** `--horizontal-pod-autoscaler-tolerance`: usage ratios within 1 ± this do not rescale. */
  hpaTolerance: number;
  /** `--horizontal-pod-autoscaler-downscale-stabilization`: the scale-down window when `behavior` sets none. */
  hpaDownscaleStabilizationMs: number;
  /** `--horizontal-pod-autoscaler-cpu-initialization-period`: young pods' cpu samples may be skipped. */
  hpaCpuInitializationPeriodMs: number;
  /** `--horizontal-pod-autoscaler-initial-readiness-delay`: readiness changes this soon after start are not trusted. */
  hpaInitialReadinessDelayMs: number;
  /** `--root-ca-file`: the CA the root-ca-cert-publisher puts in every namespace ('' : the signing CA, if any). */
  rootCaFile?: string;
  /** `--service-account-private-key-file`: the key the serviceaccount-token controller signs legacy tokens with ('' : it does not run). */
  serviceAccountPrivateKeyFile?: string;
}

export const DEFAULT_CONTROLLER_CONFIG: ControllerConfig = {
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 40_000,
  nodeStartupGracePeriodMs: 60_000,
  nodeEvictionRate: 0.1,
  secondaryNodeEvictionRate: 0.01,
  largeClusterSizeThreshold: 50,
  unhealthyZoneThreshold: 0.55,
  terminatedPodGCThreshold: 12_500,
  allocateNodeCidrs: true,
  clusterCidr: '10.42.0.0/16',
  nodeCidrMaskSize: 24,
  clusterSigningCertFile: '',
  clusterSigningKeyFile: '',
  clusterSigningDurationMs: 365 * 24 * 3600 * 1000,
  localPathDir: '/var/lib/skiff/storage',
  localPathHelperImage: 'docker.io/library/busybox:1.36',
  hpaSyncPeriodMs: 15_000,
  hpaTolerance: 0.1,
  hpaDownscaleStabilizationMs: 300_000,
  hpaCpuInitializationPeriodMs: 300_000,
  hpaInitialReadinessDelayMs: 30_000,
};

/** What the controller manager hands every controller it starts. */
export interface ControllerContext {
  /** The controller's name (its descriptor's), for metrics labels and queue names. */
  name: string;
  /** Shared by all controllers of the process (one connection pool and rate limiter). */
  client: Client;
  /**
   * Shared informers: ask for them, then call `informers.start(signal)` (idempotent;
   * the manager also calls it once every controller's start() has begun).
   */
  informers: SharedInformerFactory;
  /** Recorders are flushed by the manager on shutdown. */
  eventRecorder: EventRecorderFactory;
  logger: Logger;
  /** Served on the controller manager's /metrics; pass to `Controller` for workqueue_* metrics. */
  metrics: MetricsRegistry;
  /** Aborts when leadership is lost or the process stops. */
  signal: AbortSignal;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
  /** Flag-driven tunables; unset means DEFAULT_CONTROLLER_CONFIG. */
  config?: Partial<ControllerConfig>;
}

/** The context's tunables with upstream's defaults filled in. */
export function controllerConfig(ctx: Pick<ControllerContext, 'config'>): ControllerConfig {
  return { ...DEFAULT_CONTROLLER_CONFIG, ...ctx.config };
}

/**
 * One controller of `skiff controller-manager`. Each folder
 * `src/controllers/<name>/index.ts` exports one as `controller`, and
 * `src/controllers/registry.ts` lists it.
 */
export interface ControllerDescriptor {
  /** As in `--controllers` (upstream's names: `deployment`, `replicaset`, `garbagecollector`, …). */
  name: string;
  /** Off unless named explicitly in `--controllers` (default: on). */
  disabledByDefault?: boolean;
  /** Runs until ctx.signal aborts, then resolves once in-flight work has finished. */
  start(ctx: ControllerContext): Promise<void>;
}
