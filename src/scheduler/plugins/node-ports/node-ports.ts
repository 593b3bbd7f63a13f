import type { ContainerPort } from 'kubernetes-types/core/v1.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { ClusterEvent, EnqueueExtensions, FilterPlugin, PluginFactory, PreFilterPlugin } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { Status } from '../../framework/status.js';

export const NAME = 'NodePorts';
export const ERR_REASON = "node(s) didn't have free ports for the requested pod ports";

/** Host ports the pod asks for must be free on the node (0.0.0.0 clashes with every IP). */
export class NodePorts implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  events(): readonly ClusterEvent[] {
    return [{ resource: 'AssignedPod', actions: ['Delete'] }, { resource: 'Node', actions: ['Add', 'Update'] }];
  }

  preFilter(state: CycleState, pod: PodInfo): Status | undefined {
    const ports: ContainerPort[] = [];
    for (const c of [...(pod.pod.spec?.initContainers ?? []).filter((i) => i.restartPolicy === 'Always'), ...(pod.pod.spec?.containers ?? [])]) {
      for (const p of c.ports ?? []) if (p.hostPort) ports.push(p);
    }
    if (ports.length === 0) return Status.skip();
    state.write(NAME, ports);
    return undefined;
  }

  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): Status | undefined {
    for (const p of state.read<ContainerPort[]>(NAME) ?? []) {
      if (node.usedPorts.conflicts(p.hostIP, p.protocol, p.hostPort!)) return Status.unschedulable(ERR_REASON);
    }
    return undefined;
  }
}

export const factory: PluginFactory = () => new NodePorts();
