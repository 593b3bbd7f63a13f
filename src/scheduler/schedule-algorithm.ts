import { numFeasibleNodesToFind } from './config/scheduler-configuration.js';
import type { CycleState } from './framework/cycle-state.js';
import { FitError, type Diagnosis } from './framework/fit-error.js';
import type { Framework } from './framework/framework.js';
import type { NodeInfoLister, NodeScore, Nominator } from './framework/interface.js';
import type { NodeInfo } from './framework/node-info.js';
import type { PodInfo } from './framework/pod-info.js';
import { Code, type Status } from './framework/status.js';

/** A plugin failed (Code.Error): the attempt is retried with backoff, not reported as unschedulable. */
export class SchedulingError extends Error {
  override readonly name = 'SchedulingError';

  constructor(readonly status: Status) {
    super(`running ${status.plugin || 'plugin'}: ${status.message()}`, { cause: status.cause });
  }
}

export type ScheduleOutcome = { node: string; evaluatedNodes: number; feasibleNodes: number } | { fitError: FitError };

/**
 * One scheduling decision: PreFilter, Filter over a rotating window of nodes
 * (stopping once enough feasible ones are found), then PreScore/Score and a
 * random pick among the best. Synchronous on purpose: see Framework.
 */
export class ScheduleAlgorithm {
  private nextStartNodeIndex = 0;

  constructor(
    private readonly snapshot: NodeInfoLister,
    private readonly nominator: Nominator,
    private readonly random: () => number = Math.random,
  ) {}

  schedulePod(fwk: Framework, state: CycleState, pod: PodInfo, percentageOfNodesToScore?: number): ScheduleOutcome {
    const nodes = this.snapshot.list();
    const diagnosis: Diagnosis = { nodeStatuses: new Map(), unschedulablePlugins: new Set() };
    if (nodes.length === 0) return { fitError: new FitError(0, diagnosis) };
    const pre = fwk.runPreFilterPlugins(state, pod);
    if (pre.code === Code.Error) throw new SchedulingError(pre);
    if (!pre.isSuccess()) {
      // The same rejection applies to every node.
      for (const n of nodes) diagnosis.nodeStatuses.set(n.name, pre);
      diagnosis.preFilterMessage = pre.message();
      diagnosis.unschedulablePlugins.add(pre.plugin);
      return { fitError: new FitError(nodes.length, diagnosis) };
    }
    const want = numFeasibleNodesToFind(percentageOfNodesToScore, nodes.length);
    const feasible: NodeInfo[] = [];
    let processed = 0;
    for (; processed < nodes.length && feasible.length < want; processed++) {
      const ni = nodes[(this.nextStartNodeIndex + processed) % nodes.length];
      const s = this.filterWithNominatedPods(fwk, state, pod, ni);
      if (s.isSuccess()) {
        feasible.push(ni);
      } else if (s.code === Code.Error) {
        throw new SchedulingError(s);
      } else {
        diagnosis.nodeStatuses.set(ni.name, s);
        diagnosis.unschedulablePlugins.add(s.plugin);
      }
    }
    this.nextStartNodeIndex = (this.nextStartNodeIndex + processed) % nodes.length;
    if (feasible.length === 0) return { fitError: new FitError(nodes.length, diagnosis) };
    if (feasible.length === 1) return { node: feasible[0].name, evaluatedNodes: processed, feasibleNodes: 1 };
    const preScore = fwk.runPreScorePlugins(state, pod, feasible);
    if (!preScore.isSuccess()) throw new SchedulingError(preScore);
    const scores = fwk.runScorePlugins(state, pod, feasible);
    return { node: this.selectHost(scores), evaluatedNodes: processed, feasibleNodes: feasible.length };
  }

  /**
   * Higher-or-equal priority pods nominated to the node count as if already
   * there, so a preemptor's room is not taken; the node must fit both with
   * and without them (they may never arrive).
   */
  private filterWithNominatedPods(fwk: Framework, state: CycleState, pod: PodInfo, ni: NodeInfo): Status {
    const all = this.nominator.nominatedPodsForNode(ni.name);
    if (all.length === 0) return fwk.runFilterPlugins(state, pod, ni);
    const nominated = all.filter((p) => p.key !== pod.key && p.priority >= pod.priority);
    if (nominated.length === 0) return fwk.runFilterPlugins(state, pod, ni);
    const withNominated = ni.clone();
    for (const p of nominated) withNominated.addPod(p);
    const s = fwk.runFilterPlugins(state, pod, withNominated);
    if (!s.isSuccess()) return s;
    return fwk.runFilterPlugins(state, pod, ni);
  }

  /** The highest score; ties broken uniformly at random (reservoir sampling). */
  private selectHost(scores: readonly NodeScore[]): string {
    let best = scores[0];
    let ties = 1;
    for (let i = 1; i < scores.length; i++) {
      const s = scores[i];
      if (s.score > best.score) {
        best = s;
        ties = 1;
      } else if (s.score === best.score) {
        ties++;
        if (this.random() * ties < 1) best = s;
      }
    }
    return best.name;
  }
}
