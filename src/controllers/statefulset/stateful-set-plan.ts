import type { Pod } from 'kubernetes-types/core/v1.js';
import { isPodAvailable } from '../pod-readiness.js';
import { isPodFinished, isPodRunningAndReady, isPodTerminating } from '../history/pod-state.js';

/** One step the StatefulSet controller takes. */
export type StatefulSetAction =
  | { type: 'create'; ordinal: number; revision: 'current' | 'update' }
  | { type: 'delete'; pod: Pod; ordinal: number; why: 'failed' | 'condemned' | 'update' };

export interface StatefulSetPlanInput {
  replicas: number;
  /** spec.ordinals.start */
  start: number;
  /** OrderedReady: one pod at a time, each waiting for its predecessors; Parallel: all at once. */
  ordered: boolean;
  updateStrategy: 'RollingUpdate' | 'OnDelete';
  /** Ordinals below start+partition keep the current revision. */
  partition: number;
  minReadySeconds: number;
  now: number;
  /** The set's pods by ordinal. */
  pods: ReadonlyMap<number, Pod>;
  /** Revision names; a pod's revision is its controller-revision-hash label. */
  currentRevision: string;
  updateRevision: string;
  revisionOf: (pod: Pod) => string | undefined;
}

/**
 * Upstream's StatefulSet update algorithm as a pure function: fill and heal
 * ordinals [start, start+replicas) in ascending order, remove condemned pods
 * (ordinals outside the range) from the highest down, then roll pods at or
 * above the partition to the update revision from the highest ordinal down,
 * one at a time. In OrderedReady mode it stops at the first pod that is not
 * Running and Ready (and available), so each ordinal waits for the previous.
 */
export function planStatefulSet(input: StatefulSetPlanInput): StatefulSetAction[] {
  const actions: StatefulSetAction[] = [];
  const end = input.start + input.replicas;
  const healthy = (pod: Pod): boolean => isPodRunningAndReady(pod) && !isPodTerminating(pod) && isPodAvailable(pod, input.minReadySeconds, input.now);
  let allHealthy = true;
  for (let ord = input.start; ord < end; ord++) {
    const pod = input.pods.get(ord);
    if (!pod) {
      const keepCurrent = input.updateStrategy === 'RollingUpdate' && ord < input.start + input.partition && input.currentRevision !== input.updateRevision;
      actions.push({ type: 'create', ordinal: ord, revision: keepCurrent ? 'current' : 'update' });
      allHealthy = false;
      if (input.ordered) return actions;
      continue;
    }
    if (isPodFinished(pod) && !isPodTerminating(pod)) {
      actions.push({ type: 'delete', pod, ordinal: ord, why: 'failed' });
      allHealthy = false;
      if (input.ordered) return actions;
      continue;
    }
    if (!healthy(pod)) {
      allHealthy = false;
      if (input.ordered) return actions;
    }
  }
  const condemned = [...input.pods.entries()].filter(([ord]) => ord < input.start || ord >= end).sort(([a], [b]) => b - a);
  for (const [ord, pod] of condemned) {
    if (isPodTerminating(pod)) {
      if (input.ordered) return actions;
      continue;
    }
    // OrderedReady scales down only from a healthy set, unless this is the one unhealthy pod.
    if (input.ordered && (!allHealthy || condemned.some(([o, p]) => o !== ord && !healthy(p) && !isPodTerminating(p)))) return actions;
    actions.push({ type: 'delete', pod, ordinal: ord, why: 'condemned' });
    if (input.ordered) return actions;
  }
  if (input.updateStrategy === 'OnDelete' || actions.length > 0) return actions;
  for (let ord = end - 1; ord >= input.start + input.partition; ord--) {
    const pod = input.pods.get(ord);
    if (!pod) return actions;
    if (input.revisionOf(pod) !== input.updateRevision && !isPodTerminating(pod)) {
      actions.push({ type: 'delete', pod, ordinal: ord, why: 'update' });
      return actions;
    }
    if (!healthy(pod)) return actions;
  }
  return actions;
}
