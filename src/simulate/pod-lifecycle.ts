import type { Pod } from 'kubernetes-types/core/v1.js';
import { PODS } from '../api/resource-refs.js';
import { realClock, type Clock } from '../base/clock.js';
import { listWatcherFor } from '../client/cache/list-watcher.js';
import { Reflector } from '../client/cache/reflector.js';
import { stripManagedFields } from '../client/cache/transform.js';
import type { Client } from '../client/rest/client.js';
import { isConflict, isNotFound } from '../client/rest/error-predicates.js';
import { RateLimitingQueue } from '../client/workqueue/rate-limiting-queue.js';
import type { Logger } from '../machinery/logger.js';
import type { NodeWriter } from './node-writer.js';
import { completedStatus, nextPodAction, runningStatus, type PodTiming } from './pod-actions.js';
import { PodAddresses } from './pod-addresses.js';
import { nodeAddress } from './simulated-node.js';

/** The simulated nodes as the pod lifecycle sees them. */
export interface SimulatedNodeSet {
  /** The node's index if it is simulated here. */
  indexOf(name: string): number | undefined;
  /** A failed node's kubelet does nothing. */
  isStopped(name: string): boolean;
}

export interface PodLifecycleOptions {
  client: Client;
  writer: NodeWriter;
  nodes: SimulatedNodeSet;
  timing: PodTiming;
  /** Pod writes in flight at most. */
  concurrency: number;
  logger: Logger;
  clock?: Clock;
}

export interface PodLifecycleStats {
  /** Pods bound to simulated nodes, known now. */
  pods: number;
  started: number;
  completed: number;
  deleted: number;
  /** Writes refused with 409 or 404: a newer version (or none) is on its way. */
  stale: number;
  /** Writes that failed otherwise (retried with backoff). */
  retried: number;
}

const keyOf = (pod: Pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`;

/**
 * The pods' side of the simulated kubelets: one watch of every bound pod
 * (a field selector cannot say "one of these N nodes", so pods on other
 * nodes are dropped as they arrive), a delaying work queue keyed by pod, and
 * a fixed pool of workers that each decide (pod-actions) and write as the
 * pod's node. Pods bound elsewhere are never written.
 */
export class PodLifecycle {
  private readonly pods = new Map<string, Pod>();
  /** When each pod (by uid) was first seen bound here: the start delay counts from then. */
  private readonly seenAt = new Map<string, number>();
  private readonly addresses = new PodAddresses();
  private readonly queue: RateLimitingQueue<string>;
  private readonly clock: Clock;
  private readonly counts: Omit<PodLifecycleStats, 'pods'> = { started: 0, completed: 0, deleted: 0, stale: 0, retried: 0 };

  constructor(private readonly o: PodLifecycleOptions) {
    this.clock = o.clock ?? realClock;
    this.queue = new RateLimitingQueue<string>({ clock: this.clock });
  }

  stats(): PodLifecycleStats {
    return { pods: this.pods.size, ...this.counts };
  }

  /** Looks again at every pod of a node (its heartbeats resumed). */
  resync(node: string): void {
    for (const [key, pod] of this.pods) if (pod.spec?.nodeName === node) this.queue.add(key);
  }

  async run(signal: AbortSignal): Promise<void> {
    const reflector = new Reflector<Pod>({
      // every bound pod; those of other nodes are dropped in observe()
      listerWatcher: listWatcherFor(this.o.client.resource<Pod>(PODS), { fieldSelector: 'spec.nodeName!=' }),
      store: {
        // kept without managedFields, as the controllers' and scheduler's informers keep pods: nothing here reads them, and a status write keeps the stored records
        add: (p) => this.observe(stripManagedFields(p)),
        update: (p) => this.observe(stripManagedFields(p)),
        delete: (p) => this.forget(p),
        replace: (items) => {
          const present = new Set(items.map(keyOf));
          for (const pod of [...this.pods.values()]) if (!present.has(keyOf(pod))) this.forget(pod);
          items.forEach((p) => this.observe(stripManagedFields(p)));
        },
      },
      onError: (err) => this.o.logger.debug('pod watch failed; retrying', { error: err instanceof Error ? err.message : String(err) }),
    });
    const stop = () => this.queue.shutDown();
    signal.addEventListener('abort', stop, { once: true });
    const workers = Array.from({ length: this.o.concurrency }, () => this.work(signal));
    try {
      await Promise.all([reflector.run(signal), ...workers]);
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  private observe(pod: Pod): void {
    const node = pod.spec?.nodeName ?? '';
    const index = this.o.nodes.indexOf(node);
    if (index === undefined) return;
    const key = keyOf(pod);
    const uid = pod.metadata?.uid ?? '';
    const old = this.pods.get(key);
    if (old && old.metadata?.uid !== uid) this.forget(old);
    if (!this.seenAt.has(uid)) this.seenAt.set(uid, this.clock.now());
    const running = pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';
    if (pod.status?.podIP && running) this.addresses.claim(index, uid, pod.status.podIP);
    this.pods.set(key, pod);
    this.queue.add(key);
  }

  private forget(pod: Pod): void {
    const key = keyOf(pod);
    const uid = pod.metadata?.uid ?? '';
    if (this.pods.get(key)?.metadata?.uid === uid) this.pods.delete(key);
    this.seenAt.delete(uid);
    const index = this.o.nodes.indexOf(pod.spec?.nodeName ?? '');
    if (index !== undefined) this.addresses.release(index, uid);
  }

  private async work(signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        await this.process(key, signal);
        this.queue.forget(key);
      } catch (err) {
        if (signal.aborted) {
          // shutting down: nothing to retry
        } else if (isConflict(err) || isNotFound(err)) {
          // the pod changed or is gone: its newer version (or deletion) arrives on the watch
          this.counts.stale++;
          this.queue.forget(key);
        } else {
          // e.g. 403 while the Node authorizer's graph has yet to see the binding, or an overloaded server
          this.counts.retried++;
          this.o.logger.debug('simulated pod write failed; retrying', { pod: key, error: err instanceof Error ? err.message : String(err) });
          this.queue.addRateLimited(key);
        }
      } finally {
        this.queue.done(key);
      }
    }
  }

  private async process(key: string, signal: AbortSignal): Promise<void> {
    const pod = this.pods.get(key);
    if (!pod) return;
    const node = pod.spec!.nodeName!;
    const index = this.o.nodes.indexOf(node);
    if (index === undefined || this.o.nodes.isStopped(node)) return;
    const uid = pod.metadata?.uid ?? '';
    const now = this.clock.now();
    const action = nextPodAction(pod, this.seenAt.get(uid) ?? now, now, this.o.timing);
    switch (action.kind) {
      case 'none':
        return;
      case 'wait':
        this.queue.addAfter(key, action.atMs - now);
        return;
      case 'start':
      case 'ready': {
        const podIP = pod.status?.podIP || this.addresses.assign(index, uid);
        const ready = action.kind === 'ready' || (pod.spec?.containers ?? []).every((c) => !c.readinessProbe?.initialDelaySeconds);
        await this.o.writer.updatePodStatus(node, { ...pod, status: runningStatus(pod, { nowMs: now, podIP, hostIP: nodeAddress(index), ready }) }, signal);
        if (action.kind === 'start') this.counts.started++;
        return;
      }
      case 'complete':
        await this.o.writer.updatePodStatus(node, { ...pod, status: completedStatus(pod, now) }, signal);
        this.counts.completed++;
        // the sandbox is gone: its address may be handed out again (the status keeps it)
        this.addresses.release(index, uid);
        return;
      case 'finish-deletion':
        await this.o.writer.deletePod(node, pod, signal);
        this.counts.deleted++;
        return;
    }
  }
}
