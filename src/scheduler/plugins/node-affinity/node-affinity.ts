import type { NodeSelector, PreferredSchedulingTerm } from 'kubernetes-types/core/v1.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { ClusterEvent, EnqueueExtensions, FilterPlugin, NodeScore, PluginFactory, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { Status } from '../../framework/status.js';
import { defaultNormalizeScore } from '../normalize-score.js';
import { matchNodeSelector, matchNodeSelectorTerm, podMatchesNodeSelectorAndAffinity } from './node-selector-match.js';

export const NAME = 'NodeAffinity';
export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector";

export interface NodeAffinityArgs {
  /** Applied to every pod of the profile on top of its own (upstream's addedAffinity). */
  addedAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector; preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[] };
}

/** nodeSelector and required node affinity as a filter; preferred terms as a score. */
export class NodeAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = NAME;

  constructor(private readonly args: NodeAffinityArgs = {}) {}

  events(): readonly ClusterEvent[] {
    return [{ resource: 'Node', actions: ['Add', 'Update'] }];
  }

  /** Nothing to check for a pod without nodeSelector or required node affinity (and no profile-wide one). */
  preFilter(_state: CycleState, pod: PodInfo): Status | undefined {
    const spec = pod.pod.spec;
    const hasSelector = spec?.nodeSelector !== undefined && Object.keys(spec.nodeSelector).length > 0;
    if (!hasSelector && !spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution && !this.args.addedAffinity?.requiredDuringSchedulingIgnoredDuringExecution) return Status.skip();
    return undefined;
  }

  filter(_state: CycleState, pod: PodInfo, node: NodeInfo): Status | undefined {
    const n = node.node!;
    const added = this.args.addedAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (added && !matchNodeSelector(added, n)) return Status.unresolvable(ERR_REASON_POD);
    if (!podMatchesNodeSelectorAndAffinity(pod.pod, n)) return Status.unresolvable(ERR_REASON_POD);
    return undefined;
  }

  preScore(state: CycleState, pod: PodInfo): Status | undefined {
    const terms = [...(pod.pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []), ...(this.args.addedAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [])];
    if (terms.length === 0) return Status.skip();
    state.write(NAME, terms);
    return undefined;
  }

  score(state: CycleState, _pod: PodInfo, node: NodeInfo): number {
    const terms = state.read<PreferredSchedulingTerm[]>(NAME) ?? [];
    let sum = 0;
    for (const t of terms) if (t.weight !== 0 && matchNodeSelectorTerm(t.preference, node.node!)) sum += t.weight;
    return sum;
  }

  normalizeScore(_state: CycleState, _pod: PodInfo, scores: NodeScore[]): void {
    defaultNormalizeScore(scores, false);
  }
}

export const factory: PluginFactory = (args) => new NodeAffinity(args as NodeAffinityArgs);
