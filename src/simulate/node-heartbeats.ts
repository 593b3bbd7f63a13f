import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node } from 'kubernetes-types/core/v1.js';
import { NODES } from '../api/resource-refs.js';
import { realClock, type Clock } from '../base/clock.js';
import { listWatcherFor } from '../client/cache/list-watcher.js';
import { Reflector } from '../client/cache/reflector.js';
import type { Client } from '../client/rest/client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../client/rest/error-predicates.js';
import type { Logger } from '../machinery/logger.js';
import { NODE_LEASE_NAMESPACE, type NodeWriter } from './node-writer.js';
import { HEARTBEAT_ANNOTATION, HEARTBEAT_STOPPED, SIMULATED_LABEL, simulatedNode, simulatedNodeStatus, type SimulatedNodeShape } from './simulated-node.js';
import type { WriteLimiter } from './write-limiter.js';

export interface NodeHeartbeatsOptions {
  client: Client;
  writer: NodeWriter;
  limiter: WriteLimiter;
  names: readonly string[];
  shape: SimulatedNodeShape;
  logger: Logger;
  /** Upstream: a 40 s Lease, renewed every quarter of it (10 s). */
  leaseDurationSeconds: number;
  /** Upstream nodeStatusReportFrequency: the status is written at least this often (5 min); the Lease is the heartbeat. */
  statusReportIntervalMs: number;
  /** A stopped node's heartbeats resumed: its pods need looking at again. */
  onResume?: (node: string) => void;
  clock?: Clock;
}

interface NodeState {
  index: number;
  registered: boolean;
  /** The uid of the Node this process created (its Lease is owned by it). */
  uid?: string;
  stopped: boolean;
  lease?: Lease;
  statusAt: number;
  status?: Node['status'];
}

/** The tick loop's slots: each tick renews one slot's nodes, so renewals spread evenly over the interval. */
const SLOTS = 10;

const microTime = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '000Z');

/**
 * The heartbeats of every simulated node from one tick loop (no timer per
 * node): registration, the Lease in kube-node-lease renewed every quarter of
 * its duration, and the NodeStatus at upstream's report interval. A Node
 * annotated `node.skiff.dev/heartbeat=stopped` falls silent, so the node
 * lifecycle controller sees it fail; removing the annotation revives it.
 */
export class NodeHeartbeats {
  private readonly nodes = new Map<string, NodeState>();
  private readonly clock: Clock;
  /** Heartbeats that were due but not written (a slow API server), for honest figures. */
  private lateTicks = 0;
  private failures = 0;

  constructor(private readonly o: NodeHeartbeatsOptions) {
    this.clock = o.clock ?? realClock;
    o.names.forEach((name, index) => this.nodes.set(name, { index, registered: false, stopped: false, statusAt: 0 }));
  }

  /** The node's index if it is one of ours. */
  indexOf(name: string): number | undefined {
    return this.nodes.get(name)?.index;
  }

  isStopped(name: string): boolean {
    return this.nodes.get(name)?.stopped ?? false;
  }

  stats(): { nodes: number; registered: number; stopped: number; lateTicks: number; failures: number } {
    let registered = 0;
    let stopped = 0;
    for (const s of this.nodes.values()) {
      if (s.registered) registered++;
      if (s.stopped) stopped++;
    }
    return { nodes: this.nodes.size, registered, stopped, lateTicks: this.lateTicks, failures: this.failures };
  }

  /** Registers every node (creating or adopting it), its status and its Lease; failures are retried by the tick loop. */
  async registerAll(signal: AbortSignal): Promise<void> {
    await Promise.all([...this.nodes.keys()].map((name) => this.o.limiter.run(() => this.beat(name, signal))));
  }

  /** Watches the simulated Nodes (for the heartbeat annotation) and beats until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const reflector = new Reflector<Node>({
      listerWatcher: listWatcherFor(this.o.client.resource<Node>(NODES), { labelSelector: `${SIMULATED_LABEL}=true` }),
      store: {
        add: (n) => this.observe(n),
        update: (n) => this.observe(n),
        delete: (n) => this.forget(n),
        replace: (items) => {
          const present = new Set(items.map((n) => n.metadata?.name));
          for (const [name, s] of this.nodes) if (!present.has(name)) s.registered = false;
          items.forEach((n) => this.observe(n));
        },
      },
      onError: (err) => this.o.logger.debug('node watch failed; retrying', { error: err instanceof Error ? err.message : String(err) }),
    });
    await Promise.all([reflector.run(signal), this.tick(signal)]);
  }

  private observe(node: Node): void {
    const s = this.nodes.get(node.metadata?.name ?? '');
    if (!s) return;
    const stopped = node.metadata?.annotations?.[HEARTBEAT_ANNOTATION] === HEARTBEAT_STOPPED;
    if (s.stopped && !stopped) {
      s.stopped = false;
      this.o.logger.info('simulated node heartbeats resumed', { node: node.metadata?.name });
      s.statusAt = 0;
      this.o.onResume?.(node.metadata!.name!);
    } else if (!s.stopped && stopped) {
      s.stopped = true;
      this.o.logger.info('simulated node heartbeats stopped', { node: node.metadata?.name });
    }
  }

  private forget(node: Node): void {
    const s = this.nodes.get(node.metadata?.name ?? '');
    // deleted: the simulated kubelet registers it again, as a restarted kubelet would
    if (s) {
      s.registered = false;
      s.stopped = false;
      s.lease = undefined;
      s.uid = undefined;
    }
  }

  private async tick(signal: AbortSignal): Promise<void> {
    const names = [...this.nodes.keys()];
    const every = (this.o.leaseDurationSeconds * 1000) / 4 / SLOTS;
    let due = this.clock.monotonic();
    for (let slot = 0; !signal.aborted; slot = (slot + 1) % SLOTS) {
      due += every;
      const batch = names.filter((_, i) => i % SLOTS === slot);
      await Promise.all(batch.map((name) => this.o.limiter.run(() => this.beat(name, signal))));
      const wait = due - this.clock.monotonic();
      if (wait < 0) {
        // the writes took longer than the slot: the next slot starts late, as an overloaded kubelet's would
        this.lateTicks++;
        due = this.clock.monotonic();
      } else {
        await this.clock.sleep(wait, signal);
      }
    }
  }

  /** One heartbeat of one node: register if needed, renew the Lease, and report the status when due. */
  private async beat(name: string, signal: AbortSignal): Promise<void> {
    const s = this.nodes.get(name)!;
    if (s.stopped || signal.aborted) return;
    try {
      if (!s.registered) await this.register(name, s, signal);
      s.lease = await this.renew(name, s, signal);
      if (this.clock.now() - s.statusAt >= this.o.statusReportIntervalMs) await this.reportStatus(name, s, signal);
    } catch (err) {
      if (signal.aborted) return;
      this.failures++;
      this.o.logger.debug('simulated node heartbeat failed', { node: name, error: err instanceof Error ? err.message : String(err) });
    }
  }

  private async register(name: string, s: NodeState, signal: AbortSignal): Promise<void> {
    s.uid = undefined;
    try {
      s.uid = (await this.o.writer.createNode(simulatedNode(name, s.index, this.o.shape), signal)).metadata?.uid;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    s.statusAt = 0;
    s.registered = true;
  }

  private async reportStatus(name: string, s: NodeState, signal: AbortSignal): Promise<void> {
    const now = this.clock.now();
    const status = simulatedNodeStatus(name, s.index, this.o.shape, s.status, now);
    // a merge patch of the status alone: no resourceVersion to conflict on, as the kubelet's patch
    await this.o.writer.patchNodeStatus(name, { status }, signal);
    s.status = status;
    s.statusAt = now;
  }

  private async renew(name: string, s: NodeState, signal: AbortSignal): Promise<Lease> {
    const spec = { holderIdentity: name, leaseDurationSeconds: this.o.leaseDurationSeconds, renewTime: microTime(this.clock.now()) };
    // the last Lease written is the base of the next update (one request per renewal); a conflict re-reads it
    for (let attempt = 0; ; attempt++) {
      try {
        if (!s.lease && s.uid && attempt === 0) return await this.createLease(name, s.uid, spec, signal);
        if (!s.lease) {
          try {
            s.lease = await this.o.writer.getLease(name, signal);
          } catch (err) {
            if (!isNotFound(err)) throw err;
            s.uid = (await this.o.writer.getNode(name, signal)).metadata?.uid;
            return await this.createLease(name, s.uid ?? '', spec, signal);
          }
        }
        return await this.o.writer.updateLease(name, { ...s.lease, spec: { ...s.lease.spec, ...spec } }, signal);
      } catch (err) {
        if (!(isConflict(err) || isAlreadyExists(err) || isNotFound(err)) || attempt >= 2) throw err;
        s.lease = undefined;
      }
    }
  }

  private createLease(name: string, uid: string, spec: NonNullable<Lease['spec']>, signal: AbortSignal): Promise<Lease> {
    return this.o.writer.createLease(name, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      // owned by its Node, so deleting the Node collects the Lease
      metadata: { name, namespace: NODE_LEASE_NAMESPACE, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid }] },
      spec,
    }, signal);
  }
}
