import type { TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import type { ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { ClusterEvent, EnqueueExtensions, FilterPlugin, Handle, NodeScore, PluginFactory, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../../framework/interface.js';
import { MAX_NODE_SCORE } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { Status } from '../../framework/status.js';
import { InvalidPluginArgsError } from '../../framework/invalid-plugin-args-error.js';
import { defaultSelector, type WorkloadListers } from './default-selector.js';
import { compileConstraints, countMatching, hasAllKeys, hasKeys, mayExcludeNodes, nodeCounts, type Constraint } from './topology-spread-constraint.js';
import { spreadTally, type SpreadTally } from './spread-tally.js';
import { REPLICA_SETS, SERVICES, STATEFUL_SETS } from '../../../api/resource-refs.js';

export const NAME = 'PodTopologySpread';
export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = `${ERR_REASON_CONSTRAINTS_NOT_MATCH} (missing required label)`;
const HOSTNAME = 'kubernetes.io/hostname';

/** Upstream's system defaults: spread softly over hosts (skew 3) and zones (skew 5). */
export const SYSTEM_DEFAULT_CONSTRAINTS: TopologySpreadConstraint[] = [
  { maxSkew: 3, topologyKey: HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway' },
  { maxSkew: 5, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
];

export interface PodTopologySpreadArgs {
  defaultConstraints?: TopologySpreadConstraint[];
  defaultingType?: 'System' | 'List';
}

interface FilterState {
  constraints: Constraint[];
  /** Per constraint: matching pods per value of its topology key (every domain present, even at 0). */
  counts: Map<string, number>[];
  /** Smallest count per constraint over its domains. */
  minMatch: number[];
  /** Per constraint: whether the incoming pod matches its own selector (it adds itself to the domain). */
  selfMatch: number[];
}

interface ScoreState {
  constraints: Constraint[];
  /** Per constraint: matching pods per value of its topology key (zonal constraints only). */
  counts: Map<string, number>[];
  /** Per constraint counted from a tally (see SpreadTally): host constraints read their per-node counts there. */
  tallies: (SpreadTally | undefined)[];
  weights: number[];
  ignored: Set<string>;
}

/** Hard (DoNotSchedule) spread as a filter and soft (ScheduleAnyway) spread as a score. */
export class PodTopologySpread implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = NAME;
  private readonly defaults: TopologySpreadConstraint[];
  private readonly listers?: WorkloadListers;

  constructor(private readonly handle: Pick<Handle, 'snapshot'> & Partial<Pick<Handle, 'informers'>>, args: PodTopologySpreadArgs = {}) {
    const type = args.defaultingType ?? 'System';
    if (type === 'System' && args.defaultConstraints?.length) throw new InvalidPluginArgsError(NAME, 'defaultConstraints must be empty when defaultingType is System');
    this.defaults = type === 'System' ? SYSTEM_DEFAULT_CONSTRAINTS : (args.defaultConstraints ?? []);
    if (handle.informers && this.defaults.length > 0) {
      const f = handle.informers;
      this.listers = {
        services: f.forResource<Service>(SERVICES).lister,
        replicaSets: f.forResource<ReplicaSet>(REPLICA_SETS).lister,
        statefulSets: f.forResource<StatefulSet>(STATEFUL_SETS).lister,
      };
    }
  }

  events(): readonly ClusterEvent[] {
    return [{ resource: 'AssignedPod', actions: ['Add', 'Update', 'Delete'] }, { resource: 'Node', actions: ['Add', 'Update', 'Delete'] }];
  }

  private constraintsFor(pod: PodInfo, when: 'DoNotSchedule' | 'ScheduleAnyway'): Constraint[] {
    const own = pod.pod.spec?.topologySpreadConstraints ?? [];
    if (own.length > 0) return compileConstraints(pod.pod, own.filter((c) => c.whenUnsatisfiable === when));
    const defaults = this.defaults.filter((c) => c.whenUnsatisfiable === when);
    if (defaults.length === 0 || !this.listers) return [];
    const selector = defaultSelector(pod.pod, this.listers);
    if (selector.empty()) return [];
    return compileConstraints(pod.pod, defaults).map((c) => ({ ...c, selector }));
  }

  // PreFilter visits every node for every pod with hard constraints: kept free of per-node allocations.
  preFilter(state: CycleState, pod: PodInfo): Status | undefined {
    const constraints = this.constraintsFor(pod, 'DoNotSchedule');
    if (constraints.length === 0) return Status.skip();
    const ns = pod.pod.metadata?.namespace ?? 'default';
    const counts = constraints.map(() => new Map<string, number>());
    // Node affinity and taints can only exclude nodes when the pod has some or a constraint honours taints.
    const checkNode = constraints.map((c) => mayExcludeNodes(c, pod.pod));
    for (const ni of this.handle.snapshot.list()) {
      const node = ni.node!;
      const labels = node.metadata?.labels ?? {};
      if (!hasAllKeys(node, constraints)) continue;
      for (let i = 0; i < constraints.length; i++) {
        const c = constraints[i];
        if (checkNode[i] && !nodeCounts(c, pod.pod, node)) continue;
        const value = labels[c.topologyKey];
        const n = ni.pods.length === 0 ? 0 : countMatching(ni, c.selector, ns);
        counts[i].set(value, (counts[i].get(value) ?? 0) + n);
      }
    }
    const minMatch = constraints.map((c, i) => {
      let min = Infinity;
      for (const n of counts[i].values()) if (n < min) min = n;
      // Fewer domains than minDomains: the missing ones count as empty.
      return counts[i].size < c.minDomains || min === Infinity ? 0 : min;
    });
    const podLabels = pod.pod.metadata?.labels;
    const selfMatch = constraints.map((c) => (c.selector.matches(podLabels) ? 1 : 0));
    state.write(NAME, { constraints, counts, minMatch, selfMatch } satisfies FilterState);
    return undefined;
  }

  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): Status | undefined {
    const s = state.read<FilterState>(NAME);
    if (!s) return undefined;
    const labels = node.node?.metadata?.labels ?? {};
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i];
      if (!(c.topologyKey in labels)) return Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH);
      const matchNum = s.counts[i].get(labels[c.topologyKey]) ?? 0;
      if (matchNum + s.selfMatch[i] - s.minMatch[i] > c.maxSkew) return Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH);
    }
    return undefined;
  }

  preScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): Status | undefined {
    const constraints = this.constraintsFor(pod, 'ScheduleAnyway');
    if (constraints.length === 0) return Status.skip();
    const ns = pod.pod.metadata?.namespace ?? 'default';
    const keys = constraints.map((c) => c.topologyKey);
    const ignored = new Set<string>();
    const domains = constraints.map(() => new Set<string>());
    for (const ni of nodes) {
      const labels = ni.node!.metadata?.labels ?? {};
      if (!hasKeys(labels, keys)) {
        ignored.add(ni.name);
        continue;
      }
      for (let i = 0; i < keys.length; i++) domains[i].add(labels[keys[i]]);
    }
    // per constraint: matching pods per value of its key (host constraints are counted per node in score)
    const counts = constraints.map(() => new Map<string, number>());
    const tallies: (SpreadTally | undefined)[] = [];
    const list = this.handle.snapshot.list();
    const slow: number[] = [];
    for (let i = 0; i < constraints.length; i++) {
      const c = constraints[i];
      const host = c.topologyKey === HOSTNAME;
      // node affinity or taints make the count depend on the pod: counted node by node (host counts never skip a node)
      if (!host && mayExcludeNodes(c, pod.pod)) {
        slow.push(i);
        continue;
      }
      const tally = spreadTally(c, ns, constraints, list);
      tallies[i] = tally;
      if (host) continue;
      for (const value of domains[i]) {
        const n = tally.total(value);
        if (n !== undefined) counts[i].set(value, n);
      }
    }
    for (const ni of slow.length > 0 ? list : []) {
      const node = ni.node!;
      if (!hasAllKeys(node, constraints)) continue;
      const labels = node.metadata!.labels!;
      for (const i of slow) {
        const c = constraints[i];
        if (!nodeCounts(c, pod.pod, node)) continue;
        const value = labels[c.topologyKey];
        if (!domains[i].has(value)) continue;
        counts[i].set(value, (counts[i].get(value) ?? 0) + countMatching(ni, c.selector, ns));
      }
    }
    const weights = domains.map((d) => Math.log(d.size + 2));
    state.write(`${NAME}/score`, { constraints, counts, tallies, weights, ignored } satisfies ScoreState);
    return undefined;
  }

  score(state: CycleState, pod: PodInfo, node: NodeInfo): number {
    const s = state.read<ScoreState>(`${NAME}/score`);
    if (!s || s.ignored.has(node.name)) return 0;
    const labels = node.node?.metadata?.labels ?? {};
    const ns = pod.pod.metadata?.namespace ?? 'default';
    let score = 0;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i];
      const cnt = c.topologyKey === HOSTNAME ? (s.tallies[i]?.countOn(node) ?? countMatching(node, c.selector, ns)) : (s.counts[i].get(labels[c.topologyKey]) ?? 0);
      score += cnt * s.weights[i] + (c.maxSkew - 1);
    }
    return Math.round(score);
  }

  /** Fewer matching pods in a node's domains scores higher; nodes missing a key score 0. */
  normalizeScore(state: CycleState, _pod: PodInfo, scores: NodeScore[]): void {
    const s = state.read<ScoreState>(`${NAME}/score`);
    if (!s) return;
    let min = Infinity;
    let max = 0;
    for (const x of scores) {
      if (s.ignored.has(x.name)) continue;
      min = Math.min(min, x.score);
      max = Math.max(max, x.score);
    }
    for (const x of scores) {
      if (s.ignored.has(x.name)) x.score = 0;
      else if (max === 0) x.score = MAX_NODE_SCORE;
      else x.score = Math.floor((MAX_NODE_SCORE * (max + min - x.score)) / max);
    }
  }
}

export const factory: PluginFactory = (args, handle) => new PodTopologySpread(handle, args as PodTopologySpreadArgs);
