import type { CycleState } from '../../framework/cycle-state.js';
import type { ClusterEvent, EnqueueExtensions, FilterPlugin, PluginFactory } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { Status } from '../../framework/status.js';
import { tolerationsTolerateTaint } from '../taint-toleration/toleration-match.js';

export const NAME = 'NodeUnschedulable';
export const ERR_REASON = 'node(s) were unschedulable';
const UNSCHEDULABLE_TAINT = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

/** Cordoned nodes (spec.unschedulable) take only pods tolerating the unschedulable taint. */
export class NodeUnschedulable implements FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  events(): readonly ClusterEvent[] {
    return [{ resource: 'Node', actions: ['Add', 'Update'] }];
  }

  filter(_state: CycleState, pod: PodInfo, node: NodeInfo): Status | undefined {
    if (!node.node?.spec?.unschedulable) return undefined;
    return tolerationsTolerateTaint(pod.pod.spec?.tolerations, UNSCHEDULABLE_TAINT) ? undefined : Status.unresolvable(ERR_REASON);
  }
}

export const factory: PluginFactory = () => new NodeUnschedulable();
