import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { ClusterEvent, EnqueueExtensions, FilterPlugin, NodeScore, PluginFactory, PreScorePlugin, ScorePlugin } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { Status } from '../../framework/status.js';
import { defaultNormalizeScore } from '../normalize-score.js';
import { tolerationsTolerateTaint } from './toleration-match.js';

export const NAME = 'TaintToleration';

/** NoSchedule/NoExecute taints must be tolerated; untolerated PreferNoSchedule taints lower the score. */
export class TaintToleration implements FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = NAME;

  events(): readonly ClusterEvent[] {
    return [{ resource: 'Node', actions: ['Add', 'Update'] }];
  }

  filter(_state: CycleState, pod: PodInfo, node: NodeInfo): Status | undefined {
    const tolerations = pod.pod.spec?.tolerations;
    for (const taint of node.node?.spec?.taints ?? []) {
      if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
      if (!tolerationsTolerateTaint(tolerations, taint)) return Status.unresolvable(`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`);
    }
    return undefined;
  }

  preScore(state: CycleState, pod: PodInfo): Status | undefined {
    // Only tolerations that could apply to PreferNoSchedule taints matter here.
    const tolerations = (pod.pod.spec?.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
    state.write(NAME, tolerations);
    return undefined;
  }

  score(state: CycleState, _pod: PodInfo, node: NodeInfo): number {
    const tolerations = state.read<Toleration[]>(NAME) ?? [];
    let n = 0;
    for (const taint of node.node?.spec?.taints ?? ([] as Taint[])) {
      if (taint.effect === 'PreferNoSchedule' && !tolerationsTolerateTaint(tolerations, taint)) n++;
    }
    return n;
  }

  normalizeScore(_state: CycleState, _pod: PodInfo, scores: NodeScore[]): void {
    defaultNormalizeScore(scores, true);
  }
}

export const factory: PluginFactory = () => new TaintToleration();
