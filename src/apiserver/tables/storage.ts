import type { CSIDriver, CSINode, StorageClass, VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import { isDefaultStorageClass } from '../../api/storage-class.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './columns.js';
import { column, convertor } from './table-convertor.js';

/** Tables for storage.k8s.io, as kubectl prints them (upstream printers.go). */


export const storageClassTable = convertor<StorageClass>(
  [
    NAME_COLUMN,
    column('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
    column('ReclaimPolicy', 'string', 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.'),
    column('VolumeBindingMode', 'string', 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.'),
    column('AllowVolumeExpansion', 'string', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
    AGE_COLUMN,
  ],
  (sc, now) => [
    `${sc.metadata?.name ?? ''}${isDefaultStorageClass(sc) ? ' (default)' : ''}`,
    sc.provisioner ?? '',
    sc.reclaimPolicy ?? 'Delete',
    sc.volumeBindingMode ?? 'Immediate',
    sc.allowVolumeExpansion ?? false,
    translateTimestampSince(sc.metadata?.creationTimestamp, now),
  ],
);

export const csiDriverTable = convertor<CSIDriver>(
  [
    NAME_COLUMN,
    column('AttachRequired', 'boolean', 'attachRequired indicates this CSI volume driver requires an attach operation.'),
    column('PodInfoOnMount', 'boolean', 'podInfoOnMount indicates this CSI volume driver requires additional pod information during mount operations.'),
    column('StorageCapacity', 'boolean', 'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity.'),
    column('TokenRequests', 'string', 'tokenRequests indicates the CSI driver needs pods\' service account tokens it is mounting volume for.'),
    column('RequiresRepublish', 'boolean', 'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called.'),
    column('Modes', 'string', 'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.'),
    AGE_COLUMN,
  ],
  (d, now) => {
    const s = d.spec ?? {};
    const modes = (s.volumeLifecycleModes ?? []).join(',');
    return [
      d.metadata?.name ?? '',
      s.attachRequired ?? true,
      s.podInfoOnMount ?? false,
      s.storageCapacity ?? false,
      s.tokenRequests ? s.tokenRequests.map((t) => t.audience).join(',') : '<unset>',
      s.requiresRepublish ?? false,
      modes === '' ? '<none>' : modes,
      translateTimestampSince(d.metadata?.creationTimestamp, now),
    ];
  },
);

export const csiNodeTable = convertor<CSINode>(
  [NAME_COLUMN, column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'), AGE_COLUMN],
  (n, now) => [n.metadata?.name ?? '', n.spec?.drivers?.length ?? 0, translateTimestampSince(n.metadata?.creationTimestamp, now)],
);

export const volumeAttachmentTable = convertor<VolumeAttachment>(
  [
    NAME_COLUMN,
    column('Attacher', 'string', 'attacher indicates the name of the volume driver that MUST handle this request.'),
    column('PV', 'string', 'persistentVolumeName represents the name of the persistent volume to attach.'),
    column('Node', 'string', 'nodeName represents the node that the volume should be attached to.'),
    column('Attached', 'boolean', 'attached indicates the volume is successfully attached.'),
    AGE_COLUMN,
  ],
  (va, now) => [
    va.metadata?.name ?? '',
    va.spec?.attacher ?? '',
    va.spec?.source?.persistentVolumeName ?? '',
    va.spec?.nodeName ?? '',
    va.status?.attached ?? false,
    translateTimestampSince(va.metadata?.creationTimestamp, now),
  ],
);
