import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, Pod, Taint } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import { TokenBucket } from '../../client/flowcontrol/token-bucket.js';
import type { Client } from '../../client/rest/client.js';
import { isConflict, isNotFound } from '../../client/rest/error-predicates.js';
import type { Logger } from '../../machinery/logger.js';
import { formatTime } from '../../machinery/time.js';
import type { ControllerConfig } from '../controller-descriptor.js';
import { assessNodeHealth, type NodeHealth } from './node-health.js';
import { desiredNoScheduleTaints, hasNoExecuteTaint, noExecuteTaintKeyFor, reconcileNoScheduleTaints, withNoExecuteTaint } from './node-taints.js';
import { computeZoneState, evictionRateFor, zoneOf, type ZoneState } from './zone-state.js';
import { NODES, PODS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export interface NodeLifecycleOptions {
  client: Client;
  nodes: Lister<Node>;
  leases: Lister<Lease>;
  pods: Lister<Pod>;
  recorder: EventRecorder;
  logger: Logger;
  config: ControllerConfig;
  /** Milliseconds clock. */
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

/** One zone's rate-limited queue of nodes waiting for their NoExecute taint (upstream's RateLimitedTimedQueue). */
interface ZoneTainter {
  rate: number;
  bucket?: TokenBucket;
  queue: Set<string>;
}

/**
 * Upstream's node lifecycle controller in taint-based eviction mode: it
 * watches heartbeats (the node's Ready condition and its Lease), marks silent
 * nodes Unknown, keeps the condition NoSchedule taints, adds the
 * not-ready/unreachable NoExecute taints at a per-zone rate (the taint
 * eviction controller then evicts), and marks the pods of a lost node not
 * ready so Endpoints drop them.
 */
export class NodeLifecycleController {
  private readonly health = new Map<string, NodeHealth>();
  private readonly zoneStates = new Map<string, ZoneState>();
  private readonly tainters = new Map<string, ZoneTainter>();
  private readonly clock: Clock;
  private allDisrupted = false;
  /** Nodes this pass wrote, fresher than the cache until the watch catches up. */
  private readonly written = new Map<string, Node>();

  constructor(private readonly o: NodeLifecycleOptions) {
    this.clock = o.clock ?? realClock;
  }

  /** Keeps the NoSchedule taints of one node in line with its conditions (run on every node change). */
  async reconcileNoSchedule(name: string, signal?: AbortSignal): Promise<void> {
    const node = this.o.nodes.get(name);
    if (!node || node.metadata?.deletionTimestamp) return;
    const taints = reconcileNoScheduleTaints(node, desiredNoScheduleTaints(node));
    if (taints) await this.writeTaints(node, taints, signal);
  }

  /** One monitoring pass over every node (upstream's monitorNodeHealth). */
  async monitor(signal?: AbortSignal): Promise<void> {
    this.written.clear();
    const now = this.clock.now();
    const nodes = this.o.nodes.list();
    const seen = new Set<string>();
    const readiness = new Map<string, string>();
    for (const cached of nodes) {
      const name = cached.metadata?.name ?? '';
      seen.add(name);
      const lease = this.o.leases.get(`${NODE_LEASE_NAMESPACE}/${name}`);
      const before = this.health.get(name);
      const assessed = assessNodeHealth(cached, lease, before, now, { gracePeriodMs: this.o.config.nodeMonitorGracePeriodMs, startupGracePeriodMs: this.o.config.nodeStartupGracePeriodMs });
      this.health.set(name, assessed.health);
      readiness.set(name, assessed.ready);
      if (assessed.conditions) {
        const wasReady = cached.status?.conditions?.find((c) => c.type === 'Ready')?.status;
        const written = await this.writeConditions(cached, assessed.conditions, signal);
        if (!written) continue;
        this.written.set(name, written);
        if (wasReady === 'True') {
          this.o.logger.info('node stopped posting status', { node: name });
          this.o.recorder.event(written, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
        }
      }
      // a node the controller itself marked Unknown has lost its kubelet: nothing else will mark its pods
      if (assessed.ready === 'Unknown') await this.markPodsNotReady(name, now, signal);
    }
    for (const name of this.health.keys()) if (!seen.has(name)) this.health.delete(name);
    await this.handleDisruption(nodes, readiness, signal);
    for (const node of nodes) await this.processTaintBasedEviction(node, readiness.get(node.metadata?.name ?? '') ?? 'Unknown', signal);
  }

  /** Adds queued NoExecute taints as each zone's rate allows (upstream's doNoExecuteTaintingPass). */
  async taintQueuedNodes(signal?: AbortSignal): Promise<void> {
    for (const tainter of this.tainters.values()) {
      for (const name of [...tainter.queue]) {
        if (!tainter.bucket || !tainter.bucket.tryAccept()) break;
        tainter.queue.delete(name);
        const node = this.o.nodes.get(name);
        const health = node && readinessOf(node);
        const key = health ? noExecuteTaintKeyFor(health) : undefined;
        if (!node || !key) continue;
        const taints = withNoExecuteTaint(node, key, this.clock.now());
        if (taints && !(await this.writeTaints(node, taints, signal))) tainter.queue.add(name);
      }
    }
  }

  private async processTaintBasedEviction(cached: Node, ready: string, signal?: AbortSignal): Promise<void> {
    const name = cached.metadata?.name ?? '';
    const node = this.written.get(name) ?? this.o.nodes.get(name) ?? cached;
    const tainter = this.tainterFor(zoneOf(node));
    const key = this.allDisrupted ? undefined : noExecuteTaintKeyFor(ready);
    if (!key) {
      tainter.queue.delete(name);
      const taints = withNoExecuteTaint(node, undefined, this.clock.now());
      if (taints) {
        await this.writeTaints(node, taints, signal);
        this.o.logger.info('node healthy again: NoExecute taint removed', { node: name });
      }
      return;
    }
    const other = key === 'node.kubernetes.io/unreachable' ? 'node.kubernetes.io/not-ready' : 'node.kubernetes.io/unreachable';
    if (hasNoExecuteTaint(node, key)) return;
    if (hasNoExecuteTaint(node, other)) {
      // already being evicted: swap the taint without waiting for the rate limiter
      const taints = withNoExecuteTaint(node, key, this.clock.now());
      if (taints) await this.writeTaints(node, taints, signal);
      return;
    }
    tainter.queue.add(name);
  }

  /** Zone states and eviction rates (upstream's handleDisruption). */
  private async handleDisruption(nodes: Node[], readiness: Map<string, string>, signal?: AbortSignal): Promise<void> {
    const byZone = new Map<string, string[]>();
    for (const n of nodes) {
      const zone = zoneOf(n);
      byZone.set(zone, [...(byZone.get(zone) ?? []), readiness.get(n.metadata?.name ?? '') ?? 'Unknown']);
    }
    const states = new Map<string, ZoneState>();
    for (const [zone, statuses] of byZone) states.set(zone, computeZoneState(statuses, this.o.config.unhealthyZoneThreshold));
    const allDisrupted = states.size > 0 && [...states.values()].every((s) => s === 'FullDisruption');
    if (allDisrupted && !this.allDisrupted) {
      this.o.logger.warn('Controller detected that all Nodes are not-Ready. Entering master disruption mode.');
      for (const t of this.tainters.values()) t.queue.clear();
      for (const n of nodes) {
        const taints = withNoExecuteTaint(n, undefined, this.clock.now());
        if (taints) await this.writeTaints(n, taints, signal);
      }
    } else if (!allDisrupted && this.allDisrupted) {
      this.o.logger.info('Controller detected that some Nodes are Ready. Exiting master disruption mode.');
    }
    this.allDisrupted = allDisrupted;
    for (const [zone, state] of states) {
      if (this.zoneStates.get(zone) !== state) this.o.logger.info('zone state changed', { zone, state });
      this.zoneStates.set(zone, state);
      const tainter = this.tainterFor(zone);
      const rate = evictionRateFor(state, byZone.get(zone)!.length, {
        rate: this.o.config.nodeEvictionRate,
        secondaryRate: this.o.config.secondaryNodeEvictionRate,
        largeClusterThreshold: this.o.config.largeClusterSizeThreshold,
      });
      if (rate !== tainter.rate) {
        tainter.rate = rate;
        tainter.bucket = rate > 0 ? new TokenBucket({ qps: rate, burst: 1, clock: this.clock }) : undefined;
      }
    }
    for (const zone of [...this.zoneStates.keys()]) if (!states.has(zone)) this.zoneStates.delete(zone);
  }

  private tainterFor(zone: string): ZoneTainter {
    let t = this.tainters.get(zone);
    if (!t) {
      const rate = this.o.config.nodeEvictionRate;
      t = { rate, bucket: rate > 0 ? new TokenBucket({ qps: rate, burst: 1, clock: this.clock }) : undefined, queue: new Set() };
      this.tainters.set(zone, t);
    }
    return t;
  }

  /** Sets the Ready condition of the node's pods to False (upstream's MarkPodsNotReady). */
  private async markPodsNotReady(nodeName: string, now: number, signal?: AbortSignal): Promise<void> {
    for (const pod of this.o.pods.list()) {
      if (pod.spec?.nodeName !== nodeName) continue;
      const conditions = pod.status?.conditions ?? [];
      if (!conditions.some((c) => c.type === 'Ready' && c.status !== 'False')) continue;
      const updated = structuredClone(pod) as Pod;
      updated.status!.conditions = conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: formatTime(new Date(now)) } : c));
      try {
        await this.o.client.resource<Pod>(PODS).namespace(pod.metadata?.namespace ?? '').updateStatus(updated, { signal });
        this.o.recorder.event(pod, 'Warning', 'NodeNotReady', 'Node is not ready');
      } catch (err) {
        if (!isConflict(err) && !isNotFound(err)) throw err;
      }
    }
  }

  private async writeConditions(node: Node, conditions: NonNullable<NonNullable<Node['status']>['conditions']>, signal?: AbortSignal): Promise<Node | undefined> {
    const clone = structuredClone(node) as Node;
    const updated: Node = { ...clone, status: { ...clone.status, conditions } };
    try {
      return await this.o.client.resource<Node>(NODES).updateStatus(updated, { signal });
    } catch (err) {
      // the kubelet wrote meanwhile (or the node went away): the next pass sees its news
      if (isConflict(err) || isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async writeTaints(node: Node, taints: Taint[], signal?: AbortSignal): Promise<boolean> {
    const updated = structuredClone(node) as Node;
    updated.spec = { ...updated.spec, taints: taints.length ? taints : undefined };
    try {
      const written = await this.o.client.resource<Node>(NODES).update(updated, { signal });
      this.written.set(node.metadata?.name ?? '', written);
      return true;
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return false;
      throw err;
    }
  }
}

function readinessOf(node: Node): string {
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}
