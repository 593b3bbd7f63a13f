import type { Node, PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Lister } from '../../../client/cache/lister.js';
import type { Client } from '../../../client/rest/client.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { ClusterEvent, EnqueueExtensions, FilterPlugin, Handle, PluginFactory, PreBindPlugin, PreFilterPlugin } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { Status } from '../../framework/status.js';
import { PERSISTENT_VOLUMES, PERSISTENT_VOLUME_CLAIMS, STORAGE_CLASSES } from '../../../api/resource-refs.js';
import { matchNodeSelectorTerm } from '../../../machinery/node-selection.js';
import {
  ANN_BOUND_BY_CONTROLLER,
  ANN_SELECTED_NODE,
  NO_PROVISIONER,
  findMatchingVolume,
  storageClassOf,
  volumeNodeAffinityMatches,
} from '../../../machinery/volume-binding.js';

export const NAME = 'VolumeBinding';
export const ERR_REASON_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const ERR_REASON_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';
export const ERR_REASON_PV_NOT_EXIST = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";

/** Upstream's default bindTimeoutSeconds: how long PreBind waits for the binder and provisioner. */
const BIND_TIMEOUT_MS = 600_000;
const BIND_POLL_MS = 200;

export interface VolumeListers {
  pvcs: Lister<PersistentVolumeClaim>;
  pvs: Lister<PersistentVolume>;
  classes: Lister<StorageClass>;
}

interface PodVolumes {
  bound: (PersistentVolume | undefined)[];
  /** Unbound claims of WaitForFirstConsumer classes, with their class. */
  delayed: { pvc: PersistentVolumeClaim; sc: StorageClass }[];
}

/** Per node: the static volume chosen for each delayed claim, or undefined to provision it there. */
type Decisions = (PersistentVolume | undefined)[];

/**
 * Pods with PersistentVolumeClaims. Bound claims: the node must satisfy each
 * volume's node affinity. Unbound claims of an Immediate class (or none)
 * wait for the binder. Unbound WaitForFirstConsumer claims: a node fits if
 * each claim has a matching Available volume there, or its class can
 * provision there; PreBind then pre-binds the chosen volumes (claimRef) or
 * marks the claims with `volume.kubernetes.io/selected-node`, and waits for
 * the binder and provisioner to bind them before the pod is bound.
 */
export class VolumeBinding implements PreFilterPlugin, FilterPlugin, PreBindPlugin, EnqueueExtensions {
  readonly name = NAME;

  constructor(
    private readonly listers: VolumeListers,
    private readonly client?: Client,
    private readonly bindTimeoutMs = BIND_TIMEOUT_MS,
  ) {}

  events(): readonly ClusterEvent[] {
    return [
      { resource: 'PersistentVolumeClaim', actions: ['Add', 'Update'] },
      { resource: 'PersistentVolume', actions: ['Add', 'Update'] },
      { resource: 'StorageClass', actions: ['Add', 'Update'] },
      { resource: 'Node', actions: ['Add', 'Update'] },
    ];
  }

  preFilter(state: CycleState, pod: PodInfo): Status | undefined {
    const claims = (pod.pod.spec?.volumes ?? []).map((v) => v.persistentVolumeClaim?.claimName).filter((c): c is string => !!c);
    if (claims.length === 0) return Status.skip();
    const ns = pod.pod.metadata?.namespace ?? 'default';
    const out: PodVolumes = { bound: [], delayed: [] };
    for (const name of claims) {
      const pvc = this.listers.pvcs.namespace(ns).get(name);
      if (!pvc) return Status.unresolvable(`persistentvolumeclaim "${name}" not found`);
      if (pvc.metadata?.deletionTimestamp) return Status.unresolvable(`persistentvolumeclaim "${name}" is being deleted`);
      const pvName = pvc.spec?.volumeName;
      if (pvName) {
        out.bound.push(this.listers.pvs.get(pvName));
        continue;
      }
      const className = storageClassOf(pvc);
      const sc = className ? this.listers.classes.get(className) : undefined;
      if (sc?.volumeBindingMode !== 'WaitForFirstConsumer') return Status.unresolvable(ERR_REASON_UNBOUND_IMMEDIATE);
      out.delayed.push({ pvc, sc });
    }
    state.write(NAME, out);
    return undefined;
  }

  filter(state: CycleState, _pod: PodInfo, nodeInfo: NodeInfo): Status | undefined {
    const podVolumes = state.read<PodVolumes>(NAME);
    if (!podVolumes) return undefined;
    const node = nodeInfo.node!;
    for (const pv of podVolumes.bound) {
      if (!pv) return Status.unresolvable(ERR_REASON_PV_NOT_EXIST);
      if (!volumeNodeAffinityMatches(pv, node)) return Status.unresolvable(ERR_REASON_NODE_CONFLICT);
    }
    if (podVolumes.delayed.length === 0) return undefined;
    const taken = new Set<string>();
    const decisions: Decisions = [];
    const volumes = this.listers.pvs.list();
    for (const { pvc, sc } of podVolumes.delayed) {
      const selected = pvc.metadata?.annotations?.[ANN_SELECTED_NODE];
      const pv = findMatchingVolume(pvc, volumes, { delayBinding: true, node, exclude: taken });
      if (pv) {
        taken.add(pv.metadata?.name ?? '');
        decisions.push(pv);
        continue;
      }
      // provisioning already started for another node stays there
      if (selected && selected !== node.metadata?.name) return Status.unschedulable(ERR_REASON_BIND_CONFLICT);
      if (sc.provisioner === NO_PROVISIONER || !allowedOn(sc, node)) return Status.unschedulable(ERR_REASON_BIND_CONFLICT);
      decisions.push(undefined);
    }
    state.write(`${NAME}/${node.metadata?.name}`, decisions);
    return undefined;
  }

  async preBind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status | undefined> {
    const podVolumes = state.read<PodVolumes>(NAME);
    const decisions = state.read<Decisions>(`${NAME}/${nodeName}`);
    if (!podVolumes?.delayed.length || !decisions || !this.client) return undefined;
    try {
      for (const [i, { pvc }] of podVolumes.delayed.entries()) {
        const pv = decisions[i];
        if (pv) await this.preBindVolume(pv, pvc);
        else await this.selectNode(pvc, nodeName);
      }
    } catch (err) {
      return Status.error(err);
    }
    return this.waitForBindings(podVolumes.delayed.map((d) => d.pvc));
  }

  /** The scheduler's half of a static binding: the volume's claimRef; the binder completes the claim. */
  private async preBindVolume(pv: PersistentVolume, pvc: PersistentVolumeClaim): Promise<void> {
    if (pv.spec?.claimRef?.uid === pvc.metadata?.uid) return;
    await this.client!.resource<PersistentVolume>(PERSISTENT_VOLUMES).update({
      ...pv,
      metadata: { ...pv.metadata, annotations: { ...(pv.metadata?.annotations ?? {}), [ANN_BOUND_BY_CONTROLLER]: 'yes' } },
      spec: {
        ...pv.spec,
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: pvc.metadata?.namespace, name: pvc.metadata?.name, uid: pvc.metadata?.uid, resourceVersion: pvc.metadata?.resourceVersion },
      },
    });
  }

  private async selectNode(pvc: PersistentVolumeClaim, nodeName: string): Promise<void> {
    if (pvc.metadata?.annotations?.[ANN_SELECTED_NODE] === nodeName) return;
    await this.client!
      .resource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS)
      .namespace(pvc.metadata?.namespace ?? '')
      .patch(pvc.metadata?.name ?? '', { metadata: { annotations: { [ANN_SELECTED_NODE]: nodeName } } }, 'merge');
  }

  /** The pod is bound only once its claims are, as upstream's PreBind waits for the binder. */
  private async waitForBindings(claims: PersistentVolumeClaim[]): Promise<Status | undefined> {
    const deadline = Date.now() + this.bindTimeoutMs;
    for (;;) {
      const pending = claims.filter((c) => {
        const now = this.listers.pvcs.namespace(c.metadata?.namespace ?? '').get(c.metadata?.name ?? '');
        return !now?.spec?.volumeName || (now as { status?: { phase?: string } }).status?.phase !== 'Bound';
      });
      if (pending.length === 0) return undefined;
      if (Date.now() >= deadline) return Status.error(new Error(`binding volumes: timed out waiting for the condition`));
      await sleep(BIND_POLL_MS);
    }
  }
}

/** The class's allowedTopologies (none: everywhere) admit the node. */
function allowedOn(sc: StorageClass, node: Node): boolean {
  const terms = sc.allowedTopologies ?? [];
  if (terms.length === 0) return true;
  return terms.some((t) =>
    matchNodeSelectorTerm({ matchExpressions: (t.matchLabelExpressions ?? []).map((e) => ({ key: e.key, operator: 'In', values: e.values })) }, node),
  );
}

export const factory: PluginFactory = (_args, handle: Handle) =>
  new VolumeBinding(
    {
      pvcs: handle.informers.forResource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS).lister,
      pvs: handle.informers.forResource<PersistentVolume>(PERSISTENT_VOLUMES).lister,
      classes: handle.informers.forResource<StorageClass>(STORAGE_CLASSES).lister,
    },
    handle.client,
  );
