import type { Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { realClock, type Clock } from '../../base/clock.js';
import type { Logger } from '../../machinery/logger.js';
import { tolerationsTolerateTaint } from '../../machinery/node-selection.js';
import { podQos } from '../pod/pod-cgroups.js';
import type { PodStats, Summary } from '../stats/summary.js';
import { localStorageViolation } from './local-storage-limits.js';
import { makeSignalObservations } from './observations.js';
import { isCriticalPod } from './pod-resources.js';
import { evictionMessage, rankFor, type StatsFunc } from './rank-pods.js';
import { SIGNALS, type PressureCondition, type Signal, type SignalObservation } from './signals.js';
import { formatThreshold, isHardThreshold, type Threshold } from './threshold-config.js';
import {
  byEvictionPriority, conditionsLastObservedAt, conditionsObservedSince, mergeThresholds, nodeConditionsOf,
  thresholdsFirstObservedAt, thresholdsMet, thresholdsMetGracePeriod,
} from './thresholds.js';

/** The reason of evicted pods, of their Evicted event, and of pods refused under pressure (upstream's eviction.Reason). */
export const EVICTED_REASON = 'Evicted';
/** How long a hard eviction gives a pod to stop (upstream's immediateEvictionGracePeriodSeconds). */
export const IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS = 1;
/** How long to wait for an evicted pod to be cleaned up before looking again (upstream's podCleanupTimeout). */
const POD_CLEANUP_TIMEOUT_MS = 30_000;

const CONDITION_ORDER: readonly PressureCondition[] = ['MemoryPressure', 'DiskPressure', 'PIDPressure'];

export interface EvictPodOptions {
  /** Overrides the pod's termination grace period (1 s for hard thresholds). */
  gracePeriodSeconds: number;
  /** The pod's status message (and the Evicted event's). */
  message: string;
  /** Added to the pod's conditions: DisruptionTarget for pressure evictions. */
  condition?: PodCondition;
}

export interface EvictionManagerOptions {
  thresholds: readonly Threshold[];
  /** How long a pressure condition stays True after its threshold was last met (--eviction-pressure-transition-period, 5 min). */
  pressureTransitionPeriodMs?: number;
  /** The grace period of soft evictions (--eviction-max-pod-grace-period; 0: the pod's own). */
  maxPodGracePeriodSeconds?: number;
  /** How often to look (upstream's housekeeping interval, 10 s). */
  monitoringIntervalMs?: number;
  /** Evict pods over their own local storage limits (emptyDir sizeLimit, ephemeral-storage limits); default true. */
  localStorageCapacityIsolation?: boolean;
  /** The stats summary with filesystem figures. */
  summary(): Promise<Summary>;
  /** The pods that may be evicted: admitted, not terminal, not being deleted. */
  activePods(): Pod[];
  /** Kills the pod and marks it Failed/Evicted; resolves once it has stopped (upstream's TerminatePodAbnormallyAndWait). */
  evictPod(pod: Pod, options: EvictPodOptions): Promise<void>;
  /** Frees node-level resources before pods are evicted (unused images under disk pressure). */
  reclaimNodeLevelResources?(signal: Signal): Promise<void>;
  recordPodEvent(pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string): void;
  recordNodeEvent(type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** The set of pressure conditions changed: the node status should be written. */
  onConditionsChanged?(conditions: readonly PressureCondition[]): void;
  nodeName: string;
  logger: Logger;
  clock?: Clock;
}

/** The node events a condition's transitions record, as upstream's node status setters do: [False, True]. */
const CONDITION_EVENTS: Record<PressureCondition, [string, string]> = {
  MemoryPressure: ['NodeHasSufficientMemory', 'NodeHasInsufficientMemory'],
  DiskPressure: ['NodeHasNoDiskPressure', 'NodeHasDiskPressure'],
  PIDPressure: ['NodeHasSufficientPID', 'NodeHasInsufficientPID'],
};

/**
 * Upstream's kubelet eviction manager: every interval it observes the
 * eviction signals, keeps the node's pressure conditions (True while a
 * threshold is met and for the transition period after), refuses pods the
 * node cannot take, and when a threshold has been met for its grace period
 * reclaims node-level resources and then evicts one pod, ranked as upstream.
 */
export class EvictionManager {
  private readonly clock: Clock;
  private conditions: PressureCondition[] = [];
  private firstObservedAt = new Map<Threshold, number>();
  private conditionsObservedAt = new Map<PressureCondition, number>();
  private metThresholds: Threshold[] = [];
  private lastObservations = new Map<Signal, SignalObservation>();

  constructor(private readonly o: EvictionManagerOptions) {
    this.clock = o.clock ?? realClock;
  }

  /** The pressure conditions that are True now. */
  pressure(): readonly PressureCondition[] {
    return this.conditions;
  }

  /**
   * Upstream's eviction admit handler: under MemoryPressure alone only
   * BestEffort pods that do not tolerate it are refused; under any other
   * pressure every pod is; critical pods always get in.
   */
  admit(pod: Pod): { reason: string; message: string } | undefined {
    if (this.conditions.length === 0 || isCriticalPod(pod)) return undefined;
    if (this.conditions.length === 1 && this.conditions[0] === 'MemoryPressure') {
      if (podQos(pod) !== 'BestEffort') return undefined;
      if (tolerationsTolerateTaint(pod.spec?.tolerations, { key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' })) return undefined;
    }
    return { reason: EVICTED_REASON, message: `The node had condition: [${this.conditions.join(' ')}]. ` };
  }

  /** Looks every interval until the signal aborts; after an eviction it looks again at once. */
  async run(signal: AbortSignal): Promise<void> {
    const every = this.o.monitoringIntervalMs ?? 10_000;
    while (!signal.aborted) {
      let evicted: Pod[] = [];
      try {
        evicted = await this.synchronize();
      } catch (err) {
        this.o.logger.warn('eviction manager: failed to synchronize', { error: err instanceof Error ? err.message : String(err) });
      }
      if (evicted.length === 0) await this.clock.sleep(every, signal);
    }
  }

  /** One pass (upstream's synchronize); returns the pods it evicted. */
  async synchronize(): Promise<Pod[]> {
    const { thresholds } = this.o;
    const isolation = this.o.localStorageCapacityIsolation ?? true;
    if (thresholds.length === 0 && !isolation) return [];
    const active = this.o.activePods();
    const summary = await this.o.summary();
    const now = this.clock.now();
    const observations = makeSignalObservations(summary, now);
    const byUid = new Map(summary.pods.map((p) => [p.podRef.uid, p]));
    const stats: StatsFunc = (pod) => byUid.get(pod.metadata?.uid ?? '');

    let met = thresholdsMet(thresholds, observations, false);
    // thresholds met before stay met until their minimum reclaim is free too
    if (this.metThresholds.length > 0) met = mergeThresholds(met, thresholdsMet(this.metThresholds, observations, true));
    const firstObservedAt = thresholdsFirstObservedAt(met, this.firstObservedAt, now);
    const observedAt = conditionsLastObservedAt(nodeConditionsOf(met), this.conditionsObservedAt, now);
    const conditions = conditionsObservedSince(observedAt, this.o.pressureTransitionPeriodMs ?? 5 * 60_000, now);
    const due = thresholdsMetGracePeriod(firstObservedAt, now);

    this.setConditions(conditions);
    this.firstObservedAt = firstObservedAt;
    this.conditionsObservedAt = observedAt;
    this.metThresholds = due;
    // only thresholds whose stats are newer than last time's may evict again
    const fresh = due.filter((t) => {
      const cur = observations.get(t.signal);
      const last = this.lastObservations.get(t.signal);
      return cur !== undefined && (!last || cur.time > last.time);
    });
    this.lastObservations = observations;

    if (isolation) {
      const evicted = await this.localStorageEviction(active, stats);
      if (evicted.length > 0) return evicted;
    }
    if (fresh.length === 0) return [];

    const toReclaim = byEvictionPriority(fresh)[0]!;
    const resource = SIGNALS[toReclaim.signal].resource;
    this.o.logger.info('eviction manager: attempting to reclaim', { resourceName: resource, threshold: formatThreshold(toReclaim) });
    this.o.recordNodeEvent('Warning', 'EvictionThresholdMet', `Attempting to reclaim ${resource}`);
    if (await this.reclaimNodeLevel(toReclaim.signal)) {
      this.o.logger.info('eviction manager: able to reduce resource pressure without evicting pods', { resourceName: resource });
      return [];
    }
    if (active.length === 0) {
      this.o.logger.warn('eviction manager: eviction thresholds have been met, but no pods are active to evict');
      return [];
    }
    const ranked = rankFor(toReclaim.signal, active, stats);
    this.o.logger.info('eviction manager: pods ranked for eviction', { pods: ranked.map(podKey) });
    for (const pod of ranked) {
      const grace = isHardThreshold(toReclaim) ? IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS : (this.o.maxPodGracePeriodSeconds || (pod.spec?.terminationGracePeriodSeconds ?? 30));
      const message = evictionMessage(resource, pod, stats, fresh, observations);
      const condition: PodCondition = { type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message };
      if (await this.evict(pod, { gracePeriodSeconds: grace, message, condition })) return [pod];
    }
    this.o.logger.warn('eviction manager: unable to evict any pods from the node');
    return [];
  }

  private setConditions(next: PressureCondition[]): void {
    const sorted = CONDITION_ORDER.filter((c) => next.includes(c));
    const before = this.conditions;
    if (sorted.length === before.length && sorted.every((c, i) => c === before[i])) return;
    this.conditions = sorted;
    for (const c of CONDITION_ORDER) {
      const was = before.includes(c);
      const is = sorted.includes(c);
      if (was === is) continue;
      const event = CONDITION_EVENTS[c][is ? 1 : 0];
      this.o.logger.info('eviction manager: node condition changed', { condition: c, status: is ? 'True' : 'False' });
      this.o.recordNodeEvent('Normal', event, `Node ${this.o.nodeName} status is now: ${event}`);
    }
    this.o.onConditionsChanged?.(sorted);
  }

  /** Node-level reclaim; true when every threshold (with minimum reclaim) is clear afterwards. */
  private async reclaimNodeLevel(signal: Signal): Promise<boolean> {
    if (!this.o.reclaimNodeLevelResources || SIGNALS[signal].condition !== 'DiskPressure') return false;
    try {
      await this.o.reclaimNodeLevelResources(signal);
    } catch (err) {
      this.o.logger.info('eviction manager: unexpected error when attempting to reduce resource pressure', { error: err instanceof Error ? err.message : String(err) });
    }
    const after = makeSignalObservations(await this.o.summary(), this.clock.now());
    return thresholdsMet(this.o.thresholds, after, true).length === 0;
  }

  private async localStorageEviction(pods: Pod[], stats: StatsFunc): Promise<Pod[]> {
    const evicted: Pod[] = [];
    for (const pod of pods) {
      const s: PodStats | undefined = stats(pod);
      const why = s && localStorageViolation(pod, s);
      if (why && (await this.evict(pod, { gracePeriodSeconds: IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS, message: why }))) evicted.push(pod);
    }
    return evicted;
  }

  /** Upstream's evictPod: never a critical pod; an Evicted event, then the kill, waited for (up to 30 s). */
  private async evict(pod: Pod, options: EvictPodOptions): Promise<boolean> {
    if (isCriticalPod(pod)) {
      this.o.logger.warn('eviction manager: cannot evict a critical pod', { pod: podKey(pod) });
      return false;
    }
    this.o.recordPodEvent(pod, 'Warning', EVICTED_REASON, options.message);
    const stop = new AbortController();
    try {
      await Promise.race([this.o.evictPod(pod, options), this.clock.sleep(POD_CLEANUP_TIMEOUT_MS, stop.signal)]);
      this.o.logger.info('eviction manager: pod is evicted', { pod: podKey(pod), message: options.message });
    } catch (err) {
      this.o.logger.warn('eviction manager: pod failed to evict', { pod: podKey(pod), error: err instanceof Error ? err.message : String(err) });
    } finally {
      stop.abort();
    }
    return true;
  }
}

function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace}/${pod.metadata?.name}`;
}
