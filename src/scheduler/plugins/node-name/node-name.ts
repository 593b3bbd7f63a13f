import type { CycleState } from '../../framework/cycle-state.js';
import type { ClusterEvent, EnqueueExtensions, FilterPlugin, PluginFactory } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { Status } from '../../framework/status.js';

export const NAME = 'NodeName';
export const ERR_REASON = "node(s) didn't match the requested node name";

/** A pod created with spec.nodeName set but not yet bound only fits that node. */
export class NodeName implements FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  events(): readonly ClusterEvent[] {
    return [{ resource: 'Node', actions: ['Add', 'Update'] }];
  }

  filter(_state: CycleState, pod: PodInfo, node: NodeInfo): Status | undefined {
    const want = pod.pod.spec?.nodeName;
    return want && want !== node.name ? Status.unresolvable(ERR_REASON) : undefined;
  }
}

export const factory: PluginFactory = () => new NodeName();
