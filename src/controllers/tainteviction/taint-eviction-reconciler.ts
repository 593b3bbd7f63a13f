import type { Node, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import type { Client } from '../../client/rest/client.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import { formatTime } from '../../machinery/time.js';
import { evictionTime, taintedSince } from './eviction-time.js';
import { PODS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

export interface TaintEvictionOptions {
  client: Client;
  pods: Lister<Pod>;
  nodes: Lister<Node>;
  recorder: EventRecorder;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

/**
 * Upstream's taint eviction controller (the NoExecute taint manager): a pod
 * on a node with NoExecute taints it does not tolerate is deleted, at once or
 * after its smallest `tolerationSeconds`, with a DisruptionTarget condition
 * saying why.
 */
export class TaintEvictionReconciler implements Reconciler {
  private readonly clock: Clock;
  /** When the controller first saw a node's NoExecute taints, for taints without timeAdded. */
  private readonly firstSeen = new Map<string, number>();

  constructor(private readonly o: TaintEvictionOptions) {
    this.clock = o.clock ?? realClock;
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const pod = this.o.pods.namespace(namespace).get(name);
    if (!pod || pod.metadata?.deletionTimestamp || !pod.spec?.nodeName) return;
    const node = this.o.nodes.get(pod.spec.nodeName);
    const taints = (node?.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');
    if (taints.length === 0) {
      this.firstSeen.delete(pod.spec.nodeName);
      return;
    }
    const now = this.clock.now();
    let since = taintedSince(taints);
    if (since === undefined) {
      since = this.firstSeen.get(pod.spec.nodeName) ?? now;
      this.firstSeen.set(pod.spec.nodeName, since);
    }
    const when = evictionTime(pod.spec.tolerations, taints, since);
    if (when.kind === 'never') return;
    if (when.kind === 'at' && when.at > now) return { requeueAfter: when.at - now };
    await this.evict(pod, signal);
  }

  private async evict(pod: Pod, signal: AbortSignal): Promise<void> {
    const ns = pod.metadata?.namespace ?? '';
    const pods = this.o.client.resource<Pod>(PODS).namespace(ns);
    this.o.recorder.event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${ns}/${pod.metadata?.name ?? ''}`);
    const condition: PodCondition = {
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'DeletionByTaintManager',
      message: 'Taint manager: deleting due to NoExecute taint',
      lastTransitionTime: formatTime(new Date(this.clock.now())),
    };
    const conditions = [...(pod.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget'), condition];
    try {
      const clone = structuredClone(pod) as Pod;
      await pods.updateStatus({ ...clone, status: { ...clone.status, conditions } }, { signal });
      await pods.delete(pod.metadata?.name ?? '', { preconditions: { uid: pod.metadata?.uid }, signal });
    } catch (err) {
      // a gone pod needs nothing; a conflict is retried with the newer pod
      if (isNotFound(err)) return;
      throw err;
    }
  }
}
