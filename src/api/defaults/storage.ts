import type { PersistentVolume, PersistentVolumeClaim, PersistentVolumeClaimStatus, PersistentVolumeStatus } from 'kubernetes-types/core/v1.js';
import type { CSIDriver, CSINode, StorageClass } from 'kubernetes-types/storage/v1.js';

// kubernetes-types marks status read-only; defaulting is one of the few places that writes it.
type Writable<T, S> = T & { status?: S };

/** SetDefaults_PersistentVolume: new volumes are Pending until the binder marks them Available. */
export function setPersistentVolumeDefaults(pv: PersistentVolume): void {
  const status = ((pv as Writable<PersistentVolume, PersistentVolumeStatus>).status ??= {});
  status.phase ||= 'Pending';
  const spec = (pv.spec ??= {});
  spec.persistentVolumeReclaimPolicy ||= 'Retain';
  spec.volumeMode ??= 'Filesystem';
  if (spec.hostPath && spec.hostPath.type === undefined) spec.hostPath.type = '';
}

export function setPersistentVolumeClaimDefaults(pvc: PersistentVolumeClaim): void {
  const status = ((pvc as Writable<PersistentVolumeClaim, PersistentVolumeClaimStatus>).status ??= {});
  status.phase ||= 'Pending';
  const spec = (pvc.spec ??= {});
  spec.volumeMode ??= 'Filesystem';
}

/** SetDefaults_StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate. */
export function setStorageClassDefaults(sc: StorageClass): void {
  sc.reclaimPolicy ??= 'Delete';
  sc.volumeBindingMode ??= 'Immediate';
}

/** SetDefaults_CSIDriver. */
export function setCSIDriverDefaults(d: CSIDriver): void {
  const spec = (d.spec ??= {});
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (!spec.volumeLifecycleModes?.length) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
  spec.seLinuxMount ??= false;
}

/** SetDefaults_VolumeAttachment-alike: a CSINode's drivers list is never absent. */
export function setCSINodeDefaults(n: CSINode): void {
  const spec = (n.spec ??= { drivers: [] });
  spec.drivers ??= [];
}
