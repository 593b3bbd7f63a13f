import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../../client/cache/lister.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { ClusterEvent, EnqueueExtensions, FilterPlugin, Handle, PluginFactory, PreFilterPlugin } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { Status } from '../../framework/status.js';
import { matchNodeSelector } from '../node-affinity/node-selector-match.js';
import { PERSISTENT_VOLUMES, PERSISTENT_VOLUME_CLAIMS } from '../../../api/resource-refs.js';

export const NAME = 'VolumeBinding';
export const ERR_REASON_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const ERR_REASON_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';
export const ERR_REASON_PV_NOT_EXIST = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';

export interface VolumeListers {
  pvcs: Lister<PersistentVolumeClaim>;
  pvs: Lister<PersistentVolume>;
}

/**
 * Pods with PersistentVolumeClaims: every claim must exist and be bound, and
 * the node must satisfy each bound volume's node affinity. (Dynamic
 * provisioning and delayed binding are not handled: unbound claims wait.)
 */
export class VolumeBinding implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  constructor(private readonly listers: VolumeListers) {}

  events(): readonly ClusterEvent[] {
    return [
      { resource: 'PersistentVolumeClaim', actions: ['Add', 'Update'] },
      { resource: 'PersistentVolume', actions: ['Add', 'Update'] },
      { resource: 'Node', actions: ['Add', 'Update'] },
    ];
  }

  preFilter(state: CycleState, pod: PodInfo): Status | undefined {
    const claims = (pod.pod.spec?.volumes ?? []).map((v) => v.persistentVolumeClaim?.claimName).filter((c): c is string => !!c);
    if (claims.length === 0) return Status.skip();
    const ns = pod.pod.metadata?.namespace ?? 'default';
    const volumes: (PersistentVolume | undefined)[] = [];
    for (const name of claims) {
      const pvc = this.listers.pvcs.namespace(ns).get(name);
      if (!pvc) return Status.unresolvable(`persistentvolumeclaim "${name}" not found`);
      if (pvc.metadata?.deletionTimestamp) return Status.unresolvable(`persistentvolumeclaim "${name}" is being deleted`);
      const pvName = pvc.spec?.volumeName;
      if (!pvName) return Status.unresolvable(ERR_REASON_UNBOUND_IMMEDIATE);
      volumes.push(this.listers.pvs.get(pvName));
    }
    state.write(NAME, volumes);
    return undefined;
  }

  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): Status | undefined {
    for (const pv of state.read<(PersistentVolume | undefined)[]>(NAME) ?? []) {
      if (!pv) return Status.unresolvable(ERR_REASON_PV_NOT_EXIST);
      const required = pv.spec?.nodeAffinity?.required;
      if (required && !matchNodeSelector(required, node.node!)) return Status.unresolvable(ERR_REASON_NODE_CONFLICT);
    }
    return undefined;
  }
}

export const factory: PluginFactory = (_args, handle: Handle) =>
  new VolumeBinding({
    pvcs: handle.informers.forResource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS).lister,
    pvs: handle.informers.forResource<PersistentVolume>(PERSISTENT_VOLUMES).lister,
  });
