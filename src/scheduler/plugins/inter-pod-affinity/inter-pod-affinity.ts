import type { CycleState } from '../../framework/cycle-state.js';
import type { ClusterEvent, EnqueueExtensions, FilterPlugin, Handle, NodeScore, PluginFactory, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../../framework/interface.js';
import { MAX_NODE_SCORE } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { AffinityTerm, PodInfo } from '../../framework/pod-info.js';
import { Status } from '../../framework/status.js';

export const NAME = 'InterPodAffinity';
export const ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";

export interface InterPodAffinityArgs {
  /** Weight of an existing pod's required affinity towards the incoming pod, in scoring (default 1). */
  hardPodAffinityWeight?: number;
}

/** Counts per topology key, then per value of it. */
type TopologyCounts = Map<string, Map<string, number>>;

function bump(m: TopologyCounts, key: string, value: string | undefined, by: number): void {
  if (value === undefined) return;
  let inner = m.get(key);
  if (!inner) m.set(key, (inner = new Map()));
  inner.set(value, (inner.get(value) ?? 0) + by);
}

function lookup(m: TopologyCounts, key: string, labels: Record<string, string>): number {
  return key in labels ? (m.get(key)?.get(labels[key]) ?? 0) : 0;
}

interface FilterState {
  existingAnti: TopologyCounts;
  affinity: TopologyCounts;
  anti: TopologyCounts;
}

/** Required pod affinity/anti-affinity as a filter; preferred terms (both ways) as a score. */
export class InterPodAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = NAME;
  private readonly hardWeight: number;

  constructor(private readonly handle: Pick<Handle, 'snapshot' | 'namespaceLabels'>, args: InterPodAffinityArgs = {}) {
    this.hardWeight = args.hardPodAffinityWeight ?? 1;
  }

  events(): readonly ClusterEvent[] {
    return [{ resource: 'AssignedPod', actions: ['Add', 'Update', 'Delete'] }, { resource: 'Node', actions: ['Add', 'Update'] }, { resource: 'Namespace', actions: ['Add', 'Update'] }];
  }

  preFilter(state: CycleState, pod: PodInfo): Status | undefined {
    const nsLabels = this.handle.namespaceLabels;
    const s: FilterState = { existingAnti: new Map(), affinity: new Map(), anti: new Map() };
    // Only nodes holding pods with required anti-affinity can repel the incoming pod.
    for (const ni of this.handle.snapshot.havePodsWithRequiredAntiAffinity()) {
      const labels = ni.node?.metadata?.labels ?? {};
      for (const existing of ni.podsWithRequiredAntiAffinity) {
        for (const t of existing.requiredAntiAffinity) if (t.matches(pod.pod, nsLabels)) bump(s.existingAnti, t.topologyKey, labels[t.topologyKey], 1);
      }
    }
    if (pod.requiredAffinity.length > 0 || pod.requiredAntiAffinity.length > 0) {
      for (const ni of this.handle.snapshot.list()) {
        const labels = ni.node?.metadata?.labels ?? {};
        for (const existing of ni.pods) {
          if (pod.requiredAffinity.length > 0 && pod.requiredAffinity.every((t) => t.matches(existing.pod, nsLabels))) {
            for (const t of pod.requiredAffinity) bump(s.affinity, t.topologyKey, labels[t.topologyKey], 1);
          }
          for (const t of pod.requiredAntiAffinity) if (t.matches(existing.pod, nsLabels)) bump(s.anti, t.topologyKey, labels[t.topologyKey], 1);
        }
      }
    } else if (s.existingAnti.size === 0) {
      return Status.skip();
    }
    state.write(NAME, s);
    return undefined;
  }

  filter(state: CycleState, pod: PodInfo, node: NodeInfo): Status | undefined {
    const s = state.read<FilterState>(NAME);
    if (!s) return undefined;
    const labels = node.node?.metadata?.labels ?? {};
    for (const key of s.existingAnti.keys()) if (lookup(s.existingAnti, key, labels) > 0) return Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY);
    if (pod.requiredAffinity.length > 0) {
      const satisfied = pod.requiredAffinity.every((t) => lookup(s.affinity, t.topologyKey, labels) > 0);
      // The first pod of a group that selects itself may go anywhere that has the topology keys.
      const firstOfGroup = s.affinity.size === 0 && pod.requiredAffinity.every((t) => t.matches(pod.pod, this.handle.namespaceLabels) && t.topologyKey in labels);
      if (!satisfied && !firstOfGroup) return Status.unresolvable(ERR_REASON_AFFINITY);
    }
    for (const t of pod.requiredAntiAffinity) if (lookup(s.anti, t.topologyKey, labels) > 0) return Status.unschedulable(ERR_REASON_ANTI_AFFINITY);
    return undefined;
  }

  preScore(state: CycleState, pod: PodInfo): Status | undefined {
    const nsLabels = this.handle.namespaceLabels;
    const hasPreferred = pod.preferredAffinity.length + pod.preferredAntiAffinity.length > 0;
    const scores: TopologyCounts = new Map();
    const add = (terms: readonly AffinityTerm[], target: PodInfo['pod'], labels: Record<string, string>, sign: number, weightOverride?: number): void => {
      for (const t of terms) if (t.matches(target, nsLabels)) bump(scores, t.topologyKey, labels[t.topologyKey], sign * (weightOverride ?? t.weight));
    };
    let any = false;
    // Without preferred terms of its own, only existing pods' terms count: visit just their nodes.
    for (const ni of hasPreferred ? this.handle.snapshot.list() : this.handle.snapshot.havePodsWithAffinity()) {
      const candidates = hasPreferred ? ni.pods : ni.podsWithAffinity;
      if (candidates.length === 0) continue;
      const labels = ni.node?.metadata?.labels ?? {};
      for (const existing of candidates) {
        any = true;
        add(pod.preferredAffinity, existing.pod, labels, 1);
        add(pod.preferredAntiAffinity, existing.pod, labels, -1);
        if (this.hardWeight > 0) add(existing.requiredAffinity, pod.pod, labels, 1, this.hardWeight);
        add(existing.preferredAffinity, pod.pod, labels, 1);
        add(existing.preferredAntiAffinity, pod.pod, labels, -1);
      }
    }
    if (!any || scores.size === 0) return Status.skip();
    state.write(`${NAME}/score`, scores);
    return undefined;
  }

  score(state: CycleState, _pod: PodInfo, node: NodeInfo): number {
    const scores = state.read<TopologyCounts>(`${NAME}/score`);
    if (!scores) return 0;
    const labels = node.node?.metadata?.labels ?? {};
    let sum = 0;
    for (const key of scores.keys()) sum += lookup(scores, key, labels);
    return sum;
  }

  /** Raw scores may be negative; map [min, max] onto [0, 100]. */
  normalizeScore(_state: CycleState, _pod: PodInfo, scores: NodeScore[]): void {
    let min = Infinity;
    let max = -Infinity;
    for (const s of scores) {
      min = Math.min(min, s.score);
      max = Math.max(max, s.score);
    }
    const diff = max - min;
    for (const s of scores) s.score = diff > 0 ? Math.floor((MAX_NODE_SCORE * (s.score - min)) / diff) : 0;
  }
}

export const factory: PluginFactory = (args, handle) => new InterPodAffinity(handle, args as InterPodAffinityArgs);
