import type { KubeObject } from '../object.js';
import type { ResourceInfo } from '../resource-info.js';
import type { FieldError } from './field-error.js';
import { validateWebhookConfiguration } from './admission-registration.js';
import { validateAPIService, validateAPIServiceStatus } from './api-registration.js';
import { validateCertificateSigningRequest, validateCertificateSigningRequestUpdate } from './certificates.js';
import { validateCronJob, validateJob, validateJobUpdate } from './batch.js';
import { validateNamespace, validateNode, validateNodeUpdate, validateServiceAccount } from './cluster.js';
import { validateConfigMap, validateConfigMapUpdate, validateSecret, validateSecretUpdate } from './config.js';
import { validatePodDisruptionBudget } from './disruption-budget.js';
import { validateHorizontalPodAutoscaler } from './autoscaling.js';
import { validateEndpointSlice, validateEndpointSliceUpdate, validateEndpoints } from './endpoints.js';
import { validateCoreEvent, validateEventsEvent, validateEventsEventUpdate } from './event.js';
import { validateLease } from './lease.js';
import { validateIngress, validateIngressClass, validateIngressClassUpdate, validateNetworkPolicy } from './networking.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';
import { nameIsDNSSubdomain } from './name.js';
import { validatePersistentVolume, validatePersistentVolumeClaim, validatePersistentVolumeClaimUpdate, validatePersistentVolumeUpdate } from './persistent-volume.js';
import { validatePod, validatePodUpdate } from './pod.js';
import { validatePriorityClass, validatePriorityClassUpdate } from './priority-class.js';
import {
  validateCSIDriver,
  validateCSIDriverUpdate,
  validateCSINode,
  validateCSINodeUpdate,
  validateStorageClass,
  validateStorageClassUpdate,
  validateVolumeAttachment,
  validateVolumeAttachmentUpdate,
} from './storage.js';
import { validateLimitRange, validateResourceQuota } from './quota.js';
import { validateBindingUpdate, validateClusterRole, validateClusterRoleBinding, validateRole, validateRoleBinding } from './rbac.js';
import { validateService, validateServiceUpdate } from './service.js';
import {
  validateControllerRevision,
  validateControllerRevisionUpdate,
  validateDaemonSet,
  validateDeployment,
  validateReplicaSet,
  validateReplicationController,
  validateSelectorUpdate,
  validateStatefulSet,
  validateStatefulSetUpdate,
} from './workloads.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- each entry narrows the open KubeObject to its kind's type. */
interface KindValidation {
  /** Create-time rules; on update they run against the new object, with the old one for context. */
  validate(obj: any, old?: any): FieldError[];
  /** Update-only rules (immutability and allowed transitions). */
  update?(obj: any, old: any): FieldError[];
  /** core/v1 Events skip metadata update checks, as upstream does for compatibility. */
  skipMetaUpdate?: boolean;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

const KINDS: Record<string, KindValidation> = {
  '/Namespace': { validate: validateNamespace },
  '/Pod': { validate: validatePod, update: validatePodUpdate },
  '/Node': { validate: validateNode, update: validateNodeUpdate },
  '/Service': { validate: validateService, update: validateServiceUpdate },
  '/Endpoints': { validate: validateEndpoints },
  '/ConfigMap': { validate: validateConfigMap, update: validateConfigMapUpdate },
  '/Secret': { validate: validateSecret, update: validateSecretUpdate },
  '/ServiceAccount': { validate: validateServiceAccount },
  '/Event': { validate: validateCoreEvent, skipMetaUpdate: true },
  '/LimitRange': { validate: validateLimitRange },
  '/ResourceQuota': { validate: validateResourceQuota },
  '/PersistentVolume': { validate: validatePersistentVolume, update: validatePersistentVolumeUpdate },
  '/PersistentVolumeClaim': { validate: validatePersistentVolumeClaim, update: validatePersistentVolumeClaimUpdate },
  '/ReplicationController': { validate: validateReplicationController },
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': { validate: validateWebhookConfiguration },
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': { validate: validateWebhookConfiguration },
  'apiregistration.k8s.io/APIService': { validate: (svc) => [...validateAPIService(svc), ...validateAPIServiceStatus(svc)] },
  'apps/Deployment': { validate: validateDeployment, update: validateSelectorUpdate },
  'apps/ReplicaSet': { validate: validateReplicaSet, update: validateSelectorUpdate },
  'apps/StatefulSet': { validate: validateStatefulSet, update: validateStatefulSetUpdate },
  'apps/DaemonSet': { validate: validateDaemonSet, update: validateSelectorUpdate },
  'apps/ControllerRevision': { validate: validateControllerRevision, update: validateControllerRevisionUpdate },
  'autoscaling/HorizontalPodAutoscaler': { validate: validateHorizontalPodAutoscaler },
  'batch/Job': { validate: validateJob, update: validateJobUpdate },
  'batch/CronJob': { validate: validateCronJob },
  'certificates.k8s.io/CertificateSigningRequest': { validate: validateCertificateSigningRequest, update: validateCertificateSigningRequestUpdate },
  'coordination.k8s.io/Lease': { validate: validateLease },
  'discovery.k8s.io/EndpointSlice': { validate: validateEndpointSlice, update: validateEndpointSliceUpdate },
  'events.k8s.io/Event': { validate: validateEventsEvent, update: validateEventsEventUpdate },
  'networking.k8s.io/Ingress': { validate: validateIngress },
  'networking.k8s.io/IngressClass': { validate: validateIngressClass, update: validateIngressClassUpdate },
  'networking.k8s.io/NetworkPolicy': { validate: validateNetworkPolicy },
  'policy/PodDisruptionBudget': { validate: validatePodDisruptionBudget },
  'rbac.authorization.k8s.io/Role': { validate: validateRole },
  'rbac.authorization.k8s.io/ClusterRole': { validate: validateClusterRole },
  'rbac.authorization.k8s.io/RoleBinding': { validate: validateRoleBinding, update: validateBindingUpdate },
  'rbac.authorization.k8s.io/ClusterRoleBinding': { validate: validateClusterRoleBinding, update: validateBindingUpdate },
  'scheduling.k8s.io/PriorityClass': { validate: validatePriorityClass, update: validatePriorityClassUpdate },
  'storage.k8s.io/StorageClass': { validate: validateStorageClass, update: validateStorageClassUpdate },
  'storage.k8s.io/CSIDriver': { validate: validateCSIDriver, update: validateCSIDriverUpdate },
  'storage.k8s.io/CSINode': { validate: validateCSINode, update: validateCSINodeUpdate },
  'storage.k8s.io/VolumeAttachment': { validate: validateVolumeAttachment, update: validateVolumeAttachmentUpdate },
};

/** Kinds without specific rules still get object metadata checks. */
function fallback(info: ResourceInfo): KindValidation {
  return { validate: (obj: KubeObject) => validateObjectMeta(obj.metadata, info.namespaced, nameIsDNSSubdomain) };
}

function rulesFor(info: ResourceInfo): KindValidation {
  return KINDS[`${info.group}/${info.kind}`] ?? fallback(info);
}

/** Drops repeats: metadata rules reached through both create and update paths report once. */
function unique(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const id = JSON.stringify([e.type, e.field, e.detail, e.badValue]);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Create-time validation of a defaulted object, with upstream's field paths and messages. */
export function validateObject(obj: KubeObject, info: ResourceInfo): FieldError[] {
  return unique(rulesFor(info).validate(obj));
}

/** Update validation: metadata transitions, the create rules on the new object, then kind-specific immutability. */
export function validateObjectUpdate(obj: KubeObject, old: KubeObject, info: ResourceInfo): FieldError[] {
  const rules = rulesFor(info);
  const errs: FieldError[] = [];
  if (!rules.skipMetaUpdate) errs.push(...validateObjectMetaUpdate(obj.metadata, old.metadata));
  errs.push(...rules.validate(obj, old));
  if (rules.update) errs.push(...rules.update(obj, old));
  return unique(errs);
}
