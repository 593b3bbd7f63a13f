import type { Pod } from 'kubernetes-types/core/v1.js';
import { isPodAvailable } from '../pod-readiness.js';
import { isPodTerminating } from '../history/pod-state.js';
import type { DaemonNodeFit } from './node-eligibility.js';

export interface DaemonNode {
  name: string;
  fit: DaemonNodeFit;
  /** The DaemonSet's pods on (or meant for) this node. */
  pods: Pod[];
}

export interface DaemonSetPlanInput {
  nodes: DaemonNode[];
  /** Pods meant for nodes that no longer exist. */
  orphanedPods: Pod[];
  isUpdated: (pod: Pod) => boolean;
  strategy: 'RollingUpdate' | 'OnDelete';
  /** Resolved against the number of nodes that should run the pod. */
  maxUnavailable: number;
  maxSurge: number;
  minReadySeconds: number;
  now: number;
}

export interface DaemonSetPlan {
  /** Nodes to create a pod on (at the update revision). */
  create: string[];
  delete: Pod[];
}

const byAge = (a: Pod, b: Pod): number =>
  (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? '') || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');

/**
 * Upstream's manage + rollingUpdate as a pure function. Manage: a pod on
 * every node that should run one, none where one should not continue, failed
 * pods replaced, duplicates removed. Rolling update without surge deletes old
 * pods (unavailable ones first) while fewer than maxUnavailable nodes lack an
 * available pod; with surge it starts the new pod next to the old one and
 * deletes the old one once the new one is available.
 */
export function planDaemonSet(input: DaemonSetPlanInput): DaemonSetPlan {
  const plan: DaemonSetPlan = { create: [], delete: [...input.orphanedPods.filter((p) => !isPodTerminating(p))] };
  const available = (p: Pod): boolean => isPodAvailable(p, input.minReadySeconds, input.now);
  const rolling: { node: DaemonNode; old: Pod[]; updated?: Pod }[] = [];
  for (const node of input.nodes) {
    const live = node.pods.filter((p) => !isPodTerminating(p));
    if (!node.fit.shouldContinueRunning) {
      plan.delete.push(...live);
      continue;
    }
    if (!node.fit.shouldRun) continue; // may keep what runs, but gets nothing new
    const failed = live.filter((p) => p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded');
    plan.delete.push(...failed);
    const running = live.filter((p) => !failed.includes(p)).sort(byAge);
    if (running.length === 0) {
      // A failed pod is deleted first and replaced on a later pass; a terminating one must go first too.
      if (node.pods.length === 0) plan.create.push(node.name);
      continue;
    }
    const updated = running.filter(input.isUpdated);
    const old = running.filter((p) => !input.isUpdated(p));
    // Keep at most one pod per revision (the oldest); surplus duplicates go.
    plan.delete.push(...updated.slice(1), ...old.slice(1));
    if (input.strategy === 'RollingUpdate' && old.length > 0) rolling.push({ node, old: old.slice(0, 1), updated: updated[0] });
    else if (old.length > 0 && updated.length > 0) plan.delete.push(...old.slice(0, 1));
  }
  if (rolling.length === 0) return plan;

  // Nodes that should run a pod but have no available one count against maxUnavailable.
  let unavailable = input.nodes.filter((n) => n.fit.shouldRun && !n.pods.some((p) => !isPodTerminating(p) && available(p))).length;
  if (input.maxSurge === 0) {
    const candidates: Pod[] = [];
    for (const { old, updated } of rolling) {
      if (updated) {
        if (available(updated)) plan.delete.push(...old);
        continue;
      }
      if (!available(old[0])) plan.delete.push(old[0]); // already unavailable: no cost to replace
      else candidates.push(old[0]);
    }
    for (const pod of candidates) {
      if (unavailable >= input.maxUnavailable) break;
      unavailable++;
      plan.delete.push(pod);
    }
    return plan;
  }
  let surging = rolling.filter((r) => r.updated && !available(r.updated)).length;
  for (const { node, old, updated } of rolling) {
    if (updated) {
      if (available(updated)) plan.delete.push(...old);
      continue;
    }
    if (!available(old[0])) {
      if (unavailable >= input.maxUnavailable) continue;
      unavailable++;
      plan.delete.push(old[0]);
    } else if (surging < input.maxSurge) {
      surging++;
      plan.create.push(node.name);
    }
  }
  return plan;
}

/** intstr scaling as upstream's rolling update uses it: percentages of `total`, rounded up. */
export function scaledValue(value: number | string | undefined, total: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number') return value;
  const m = /^(\d+)%$/.exec(value);
  if (m) return Math.ceil((Number(m[1]) * total) / 100);
  return /^\d+$/.test(value) ? Number(value) : fallback;
}
