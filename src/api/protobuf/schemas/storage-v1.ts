import { messages } from '../message-schema.js';

/**
 * storage.k8s.io/v1: StorageClass, CSIDriver, CSINode and VolumeAttachment,
 * plus core's TopologySelectorTerm that StorageClass.allowedTopologies uses.
 */
export const STORAGE_V1 = messages({
  StorageClass: {
    1: 'metadata:ObjectMeta',
    2: 'provisioner!',
    3: 'parameters:s{}',
    4: 'reclaimPolicy:s*',
    5: 'mountOptions:s[]',
    6: 'allowVolumeExpansion:b*',
    7: 'volumeBindingMode:s*',
    8: 'allowedTopologies:TopologySelectorTerm[]',
  },
  TopologySelectorTerm: { 1: 'matchLabelExpressions:TopologySelectorLabelRequirement[]' },
  TopologySelectorLabelRequirement: { 1: 'key!', 2: 'values:s[]!' },
  CSIDriver: { 1: 'metadata:ObjectMeta', 2: 'spec:CSIDriverSpec' },
  CSIDriverSpec: {
    1: 'attachRequired:b*',
    2: 'podInfoOnMount:b*',
    3: 'volumeLifecycleModes:s[]',
    4: 'storageCapacity:b*',
    5: 'fsGroupPolicy:s*',
    6: 'tokenRequests:StorageTokenRequest[]',
    7: 'requiresRepublish:b*',
    8: 'seLinuxMount:b*',
    9: 'nodeAllocatableUpdatePeriodSeconds:i64*',
    10: 'serviceAccountTokenInSecrets:b*',
  },
  StorageTokenRequest: { 1: 'audience!', 2: 'expirationSeconds:i64*' },
  CSINode: { 1: 'metadata:ObjectMeta', 2: 'spec:CSINodeSpec' },
  CSINodeSpec: { 1: 'drivers:CSINodeDriver[]!' },
  CSINodeDriver: { 1: 'name!', 2: 'nodeID!', 3: 'topologyKeys:s[]!', 4: 'allocatable:VolumeNodeResources*' },
  VolumeNodeResources: { 1: 'count:i32*' },
  VolumeAttachment: { 1: 'metadata:ObjectMeta', 2: 'spec:VolumeAttachmentSpec', 3: 'status:VolumeAttachmentStatus' },
  VolumeAttachmentSpec: { 1: 'attacher!', 2: 'source:VolumeAttachmentSource', 3: 'nodeName!' },
  VolumeAttachmentSource: { 1: 'persistentVolumeName:s*', 2: 'inlineVolumeSpec:PersistentVolumeSpec*' },
  VolumeAttachmentStatus: {
    1: 'attached:b!',
    2: 'attachmentMetadata:s{}',
    3: 'attachError:VolumeError*',
    4: 'detachError:VolumeError*',
  },
  VolumeError: { 1: 'time:Time', 2: 'message', 3: 'errorCode:i32*' },
});
