import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN, fieldColumn } from './columns.js';
import { accessModes, quantity } from './format.js';
import { column, convertor } from './table-convertor.js';

/** Tables for persistent volumes and claims. */

/** The annotation that predates `storageClassName` and still takes precedence. */
const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

function storageClassOf(annotations: Record<string, string> | undefined, className: string | undefined): string {
  const beta = annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  return beta !== undefined ? beta : (className ?? '');
}

export const persistentVolumeTable = convertor<PersistentVolume>(
  [
    NAME_COLUMN,
    fieldColumn('Capacity', 'string', 'PersistentVolumeSpec.capacity'),
    fieldColumn('Access Modes', 'string', 'PersistentVolumeSpec.accessModes'),
    fieldColumn('Reclaim Policy', 'string', 'PersistentVolumeSpec.persistentVolumeReclaimPolicy'),
    fieldColumn('Status', 'string', 'PersistentVolumeStatus.phase'),
    fieldColumn('Claim', 'string', 'PersistentVolumeSpec.claimRef'),
    column('StorageClass', 'string', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    fieldColumn('Reason', 'string', 'PersistentVolumeStatus.reason'),
    AGE_COLUMN,
    fieldColumn('VolumeMode', 'string', 'PersistentVolumeSpec.volumeMode', 1),
  ],
  (pv, now) => {
    const ref = pv.spec?.claimRef;
    return [
      pv.metadata?.name ?? '',
      quantity(pv.spec?.capacity?.storage),
      accessModes(pv.spec?.accessModes),
      pv.spec?.persistentVolumeReclaimPolicy ?? '',
      pv.metadata?.deletionTimestamp ? 'Terminating' : (pv.status?.phase ?? ''),
      ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : '',
      storageClassOf(pv.metadata?.annotations, pv.spec?.storageClassName),
      pv.spec?.volumeAttributesClassName ?? '<unset>',
      pv.status?.reason ?? '',
      translateTimestampSince(pv.metadata?.creationTimestamp, now),
      pv.spec?.volumeMode ?? '<unset>',
    ];
  },
);

export const persistentVolumeClaimTable = convertor<PersistentVolumeClaim>(
  [
    NAME_COLUMN,
    fieldColumn('Status', 'string', 'PersistentVolumeClaimStatus.phase'),
    fieldColumn('Volume', 'string', 'PersistentVolumeClaimSpec.volumeName'),
    fieldColumn('Capacity', 'string', 'PersistentVolumeClaimStatus.capacity'),
    fieldColumn('Access Modes', 'string', 'PersistentVolumeClaimStatus.accessModes'),
    column('StorageClass', 'string', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    AGE_COLUMN,
    fieldColumn('VolumeMode', 'string', 'PersistentVolumeClaimSpec.volumeMode', 1),
  ],
  (pvc, now) => {
    const volumeName = pvc.spec?.volumeName ?? '';
    // Capacity and modes are only meaningful once the claim is bound to a volume.
    const bound = volumeName !== '';
    return [
      pvc.metadata?.name ?? '',
      pvc.metadata?.deletionTimestamp ? 'Terminating' : (pvc.status?.phase ?? ''),
      volumeName,
      bound ? quantity(pvc.status?.capacity?.storage) : '',
      bound ? accessModes(pvc.status?.accessModes) : '',
      storageClassOf(pvc.metadata?.annotations, pvc.spec?.storageClassName),
      pvc.spec?.volumeAttributesClassName ?? '<unset>',
      translateTimestampSince(pvc.metadata?.creationTimestamp, now),
      pvc.spec?.volumeMode ?? '<unset>',
    ];
  },
);
