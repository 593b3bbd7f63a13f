import type { KubeObject } from '../object.js';
import type { ResourceInfo } from '../resource-info.js';
import { setMutatingWebhookConfigurationDefaults, setValidatingWebhookConfigurationDefaults } from './admission-registration.js';
import { setValidatingAdmissionPolicyBindingDefaults, setValidatingAdmissionPolicyDefaults } from './admission-policy.js';
import { setAPIServiceDefaults } from './api-registration.js';
import { setHorizontalPodAutoscalerDefaults } from './autoscaling.js';
import { setCronJobDefaults, setJobDefaults } from './batch.js';
import {
  setEndpointSliceDefaults,
  setEndpointsDefaults,
  setLimitRangeDefaults,
  setNamespaceDefaults,
  setNodeDefaults,
  setPriorityClassDefaults,
  setSecretDefaults,
} from './core.js';
import { setIngressClassDefaults, setNetworkPolicyDefaults } from './networking.js';
import { setPodDefaults } from './pod-spec.js';
import { setBindingDefaults } from './rbac.js';
import { setServiceDefaults } from './service.js';
import { setCSIDriverDefaults, setCSINodeDefaults, setPersistentVolumeClaimDefaults, setPersistentVolumeDefaults, setStorageClassDefaults } from './storage.js';
import { setDaemonSetDefaults, setDeploymentDefaults, setReplicaSetDefaults, setReplicationControllerDefaults, setStatefulSetDefaults } from './workloads.js';

export { generateJobSelector } from './batch.js';
export { setServiceIPFamilyDefaults } from './service.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each defaulter narrows the open KubeObject to its kind.
type Defaulter = (obj: any) => void;

/** Kinds with defaults, keyed `group/Kind`; the rest (ConfigMap, Lease, Events, ...) have none upstream. */
const DEFAULTERS: Record<string, Defaulter> = {
  '/Namespace': setNamespaceDefaults,
  '/Pod': setPodDefaults,
  '/Node': setNodeDefaults,
  '/Service': setServiceDefaults,
  '/Endpoints': setEndpointsDefaults,
  '/Secret': setSecretDefaults,
  '/LimitRange': setLimitRangeDefaults,
  '/PersistentVolume': setPersistentVolumeDefaults,
  '/PersistentVolumeClaim': setPersistentVolumeClaimDefaults,
  '/ReplicationController': setReplicationControllerDefaults,
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': setMutatingWebhookConfigurationDefaults,
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': setValidatingWebhookConfigurationDefaults,
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': setValidatingAdmissionPolicyDefaults,
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': setValidatingAdmissionPolicyBindingDefaults,
  'apiregistration.k8s.io/APIService': setAPIServiceDefaults,
  'apps/Deployment': setDeploymentDefaults,
  'apps/ReplicaSet': setReplicaSetDefaults,
  'apps/StatefulSet': setStatefulSetDefaults,
  'apps/DaemonSet': setDaemonSetDefaults,
  'autoscaling/HorizontalPodAutoscaler': setHorizontalPodAutoscalerDefaults,
  'batch/Job': setJobDefaults,
  'batch/CronJob': setCronJobDefaults,
  'discovery.k8s.io/EndpointSlice': setEndpointSliceDefaults,
  'networking.k8s.io/IngressClass': setIngressClassDefaults,
  'networking.k8s.io/NetworkPolicy': setNetworkPolicyDefaults,
  'rbac.authorization.k8s.io/RoleBinding': setBindingDefaults,
  'rbac.authorization.k8s.io/ClusterRoleBinding': setBindingDefaults,
  'scheduling.k8s.io/PriorityClass': setPriorityClassDefaults,
  'storage.k8s.io/StorageClass': setStorageClassDefaults,
  'storage.k8s.io/CSIDriver': setCSIDriverDefaults,
  'storage.k8s.io/CSINode': setCSINodeDefaults,
};

/** Applies upstream's defaulting for the resource's kind, mutating `obj` (the caller passes a clone). */
export function applyDefaults(obj: KubeObject, info: ResourceInfo): void {
  DEFAULTERS[`${info.group}/${info.kind}`]?.(obj);
}
