import type { Node, PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { BETA_STORAGE_CLASS_ANNOTATION } from '../api/storage-class.js';
import { labelSelectorFromObject } from './labels/index.js';
import { matchNodeSelector } from './node-selection.js';
import { parseQuantity, type Quantity } from './quantity.js';

/** Annotations of upstream's PersistentVolume binder, provisioners and the scheduler. */
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_DYNAMICALLY_PROVISIONED = 'pv.kubernetes.io/provisioned-by';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
/** Upstream's protection finalizers: a claim in use by a pod, or a bound volume, is not removed while they stand. */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';
/** The provisioner name that means "no dynamic provisioning" (local PVs made by hand). */
export const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

type Classed = { metadata?: { annotations?: Record<string, string> }; spec?: { storageClassName?: string } };

/** A claim's or volume's class: the beta annotation wins over `storageClassName`, as upstream. */
export function storageClassOf(obj: Classed): string {
  const beta = obj.metadata?.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  return beta !== undefined ? beta : (obj.spec?.storageClassName ?? '');
}

/** The volume's claimRef names this claim (and, once it has a uid, this very claim). */
export function isVolumeBoundToClaim(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  const ref = pv.spec?.claimRef;
  if (!ref) return false;
  if (ref.name !== pvc.metadata?.name || ref.namespace !== pvc.metadata?.namespace) return false;
  return !ref.uid || ref.uid === pvc.metadata?.uid;
}

function quantityOr(v: string | number | undefined, fallback: Quantity): Quantity {
  try {
    return v === undefined ? fallback : parseQuantity(String(v));
  } catch {
    return fallback;
  }
}

/** The claim's requested size (0 if absent or unparseable). */
export function requestedStorage(pvc: PersistentVolumeClaim): Quantity {
  return quantityOr(pvc.spec?.resources?.requests?.storage, parseQuantity('0'));
}

export function volumeCapacity(pv: PersistentVolume): Quantity {
  return quantityOr(pv.spec?.capacity?.storage, parseQuantity('0'));
}

/** Every access mode the claim asks for is one the volume offers. */
export function accessModesSatisfied(pvc: PersistentVolumeClaim, pv: PersistentVolume): boolean {
  const offered = new Set(pv.spec?.accessModes ?? []);
  return (pvc.spec?.accessModes ?? []).every((m) => offered.has(m));
}

/** The volume's node affinity admits the node (no affinity admits every node). */
export function volumeNodeAffinityMatches(pv: PersistentVolume, node: Node): boolean {
  const required = pv.spec?.nodeAffinity?.required;
  return !required || matchNodeSelector(required, node);
}

export interface MatchOptions {
  /** The claim's class binds late (WaitForFirstConsumer): without a node only pre-bound volumes match. */
  delayBinding: boolean;
  /** The scheduler's candidate node: volumes must admit it. */
  node?: Node;
  /** Volumes already taken for other claims of the same pod. */
  exclude?: ReadonlySet<string>;
}

/**
 * Upstream's findMatchingVolume: a volume pre-bound to the claim wins;
 * otherwise the smallest Available, unclaimed volume of the claim's class
 * that is big enough, offers the claim's access modes, matches its selector
 * and volume mode (and admits the node, when there is one).
 */
export function findMatchingVolume(pvc: PersistentVolumeClaim, volumes: readonly PersistentVolume[], o: MatchOptions): PersistentVolume | undefined {
  const requested = requestedStorage(pvc);
  const selector = pvc.spec?.selector ? labelSelectorFromObject(pvc.spec.selector) : undefined;
  const wantedClass = storageClassOf(pvc);
  const wantedMode = pvc.spec?.volumeMode ?? 'Filesystem';
  let best: PersistentVolume | undefined;
  for (const pv of volumes) {
    if (o.exclude?.has(pv.metadata?.name ?? '')) continue;
    if ((pv.spec?.volumeMode ?? 'Filesystem') !== wantedMode) continue;
    if (pv.metadata?.deletionTimestamp) continue;
    if (volumeCapacity(pv).cmp(requested) < 0) continue;
    if (!accessModesSatisfied(pvc, pv)) continue;
    const affinityOk = !o.node || volumeNodeAffinityMatches(pv, o.node);
    if (isVolumeBoundToClaim(pv, pvc)) return affinityOk ? pv : undefined;
    if (!o.node && o.delayBinding) continue;
    if (pv.status?.phase !== 'Available' || pv.spec?.claimRef) continue;
    if (selector && !selector.matches(pv.metadata?.labels ?? {})) continue;
    if (storageClassOf(pv) !== wantedClass || !affinityOk) continue;
    if (!best || volumeCapacity(best).cmp(volumeCapacity(pv)) > 0) best = pv;
  }
  return best;
}
