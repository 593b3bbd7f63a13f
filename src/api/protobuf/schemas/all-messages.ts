import type { MessageTable } from '../message-schema.js';
import { ADMISSIONREGISTRATION_V1 } from './admissionregistration-v1.js';
import { ADMISSIONREGISTRATION_V1_POLICIES } from './admissionregistration-v1-policies.js';
import { APIREGISTRATION_V1 } from './apiregistration-v1.js';
import { AUTHN_AUTHZ_V1 } from './authn-authz-v1.js';
import { AUTOSCALING } from './autoscaling.js';
import { CERTIFICATES_V1 } from './certificates-v1.js';
import { CORE_V1 } from './core-v1.js';
import { CORE_V1_POD } from './core-v1-pod.js';
import { CORE_V1_VOLUME } from './core-v1-volume.js';
import { FLOWCONTROL_V1 } from './flowcontrol-v1.js';
import { META_V1 } from './meta-v1.js';
import { MORE_V1 } from './more-v1.js';
import { OTHER_GROUPS_V1 } from './other-groups-v1.js';
import { RBAC_V1 } from './rbac-v1.js';
import { STORAGE_V1 } from './storage-v1.js';
import { WORKLOADS_V1 } from './workloads-v1.js';

/** Every message skiff decodes, by name (names are unique across groups). */
export const ALL_MESSAGES: MessageTable = {
  ...META_V1,
  ...CORE_V1,
  ...CORE_V1_POD,
  ...CORE_V1_VOLUME,
  ...WORKLOADS_V1,
  ...RBAC_V1,
  ...OTHER_GROUPS_V1,
  ...AUTHN_AUTHZ_V1,
  ...CERTIFICATES_V1,
  ...MORE_V1,
  ...FLOWCONTROL_V1,
  ...ADMISSIONREGISTRATION_V1,
  ...ADMISSIONREGISTRATION_V1_POLICIES,
  ...APIREGISTRATION_V1,
  ...STORAGE_V1,
  ...AUTOSCALING,
};

/** The message of each top-level kind, keyed `apiVersion/Kind` (core: `v1/Kind`). */
export const KIND_MESSAGES: Readonly<Record<string, string>> = {
  'v1/Namespace': 'Namespace',
  'v1/ConfigMap': 'ConfigMap',
  'v1/Secret': 'Secret',
  'v1/ServiceAccount': 'ServiceAccount',
  'v1/Service': 'Service',
  'v1/ResourceQuota': 'ResourceQuota',
  'v1/LimitRange': 'LimitRange',
  'v1/PersistentVolumeClaim': 'PersistentVolumeClaim',
  'v1/Pod': 'Pod',
  'v1/ReplicationController': 'ReplicationController',
  'v1/DeleteOptions': 'DeleteOptions',
  'meta.k8s.io/v1/DeleteOptions': 'DeleteOptions',
  'apps/v1/Deployment': 'Deployment',
  'apps/v1/ReplicaSet': 'ReplicaSet',
  'batch/v1/Job': 'Job',
  'batch/v1/CronJob': 'CronJob',
  'policy/v1/PodDisruptionBudget': 'PodDisruptionBudget',
  'policy/v1/Eviction': 'Eviction',
  'scheduling.k8s.io/v1/PriorityClass': 'PriorityClass',
  'networking.k8s.io/v1/Ingress': 'Ingress',
  'networking.k8s.io/v1/IngressClass': 'IngressClass',
  'networking.k8s.io/v1/NetworkPolicy': 'NetworkPolicy',
  'flowcontrol.apiserver.k8s.io/v1/FlowSchema': 'FlowSchema',
  'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration': 'PriorityLevelConfiguration',
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': 'MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': 'ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': 'ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': 'ValidatingAdmissionPolicyBinding',
  'apiregistration.k8s.io/v1/APIService': 'APIService',
  'authentication.k8s.io/v1/TokenRequest': 'TokenRequest',
  'autoscaling/v1/Scale': 'Scale',
  'autoscaling/v2/HorizontalPodAutoscaler': 'HorizontalPodAutoscaler',
  'autoscaling/v1/HorizontalPodAutoscaler': 'HorizontalPodAutoscalerV1',
  'coordination.k8s.io/v1/Lease': 'Lease',
  'authorization.k8s.io/v1/SubjectAccessReview': 'SubjectAccessReview',
  'authorization.k8s.io/v1/LocalSubjectAccessReview': 'LocalSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectAccessReview': 'SelfSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview': 'SelfSubjectRulesReview',
  'authentication.k8s.io/v1/TokenReview': 'TokenReview',
  'authentication.k8s.io/v1/SelfSubjectReview': 'SelfSubjectReview',
  'rbac.authorization.k8s.io/v1/Role': 'Role',
  'rbac.authorization.k8s.io/v1/ClusterRole': 'ClusterRole',
  'rbac.authorization.k8s.io/v1/RoleBinding': 'RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': 'ClusterRoleBinding',
  'v1/Node': 'Node',
  'v1/Endpoints': 'Endpoints',
  'v1/Event': 'Event',
  'v1/PersistentVolume': 'PersistentVolume',
  'apps/v1/StatefulSet': 'StatefulSet',
  'apps/v1/DaemonSet': 'DaemonSet',
  'apps/v1/ControllerRevision': 'ControllerRevision',
  'discovery.k8s.io/v1/EndpointSlice': 'EndpointSlice',
  'events.k8s.io/v1/Event': 'EventsV1Event',
  'certificates.k8s.io/v1/CertificateSigningRequest': 'CertificateSigningRequest',
  'storage.k8s.io/v1/StorageClass': 'StorageClass',
  'storage.k8s.io/v1/CSIDriver': 'CSIDriver',
  'storage.k8s.io/v1/CSINode': 'CSINode',
  'storage.k8s.io/v1/VolumeAttachment': 'VolumeAttachment',
};
