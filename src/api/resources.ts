import { ALL_VERBS, CREATE_ONLY, type ResourceInfo } from './resource-info.js';

interface Entry {
  kind: string;
  resource: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  subresources?: string[];
  verbs?: string[];
}

function group(groupName: string, version: string, entries: Entry[]): ResourceInfo[] {
  return entries.map((e) => ({
    group: groupName,
    version,
    kind: e.kind,
    listKind: `${e.kind}List`,
    resource: e.resource,
    singular: e.kind.toLowerCase(),
    namespaced: e.namespaced,
    shortNames: e.shortNames ?? [],
    categories: e.categories ?? [],
    subresources: e.subresources ?? [],
    verbs: e.verbs ?? ALL_VERBS,
  }));
}

/**
 * Every resource skiff serves. Adding a resource is one entry here plus its
 * strategy in `apiserver/registry/`.
 */
export const RESOURCES: readonly ResourceInfo[] = [
  ...group('', 'v1', [
    { kind: 'Namespace', resource: 'namespaces', namespaced: false, shortNames: ['ns'], subresources: ['status', 'finalize'] },
    { kind: 'Pod', resource: 'pods', namespaced: true, shortNames: ['po'], categories: ['all'], subresources: ['status', 'binding', 'eviction', 'log', 'exec', 'attach', 'portforward', 'proxy', 'ephemeralcontainers'] },
    { kind: 'Node', resource: 'nodes', namespaced: false, shortNames: ['no'], subresources: ['status', 'proxy'] },
    { kind: 'Service', resource: 'services', namespaced: true, shortNames: ['svc'], categories: ['all'], subresources: ['status', 'proxy'] },
    { kind: 'Endpoints', resource: 'endpoints', namespaced: true, shortNames: ['ep'] },
    { kind: 'ConfigMap', resource: 'configmaps', namespaced: true, shortNames: ['cm'] },
    { kind: 'Secret', resource: 'secrets', namespaced: true },
    { kind: 'ServiceAccount', resource: 'serviceaccounts', namespaced: true, shortNames: ['sa'], subresources: ['token'] },
    { kind: 'Event', resource: 'events', namespaced: true, shortNames: ['ev'] },
    { kind: 'LimitRange', resource: 'limitranges', namespaced: true, shortNames: ['limits'] },
    { kind: 'ResourceQuota', resource: 'resourcequotas', namespaced: true, shortNames: ['quota'], subresources: ['status'] },
    { kind: 'PersistentVolume', resource: 'persistentvolumes', namespaced: false, shortNames: ['pv'], subresources: ['status'] },
    { kind: 'PersistentVolumeClaim', resource: 'persistentvolumeclaims', namespaced: true, shortNames: ['pvc'], subresources: ['status'] },
    { kind: 'ReplicationController', resource: 'replicationcontrollers', namespaced: true, shortNames: ['rc'], categories: ['all'], subresources: ['status', 'scale'] },
  ]),
  ...group('admissionregistration.k8s.io', 'v1', [
    { kind: 'MutatingWebhookConfiguration', resource: 'mutatingwebhookconfigurations', namespaced: false, categories: ['api-extensions'] },
    { kind: 'ValidatingWebhookConfiguration', resource: 'validatingwebhookconfigurations', namespaced: false, categories: ['api-extensions'] },
    { kind: 'ValidatingAdmissionPolicy', resource: 'validatingadmissionpolicies', namespaced: false, categories: ['api-extensions'], subresources: ['status'] },
    { kind: 'ValidatingAdmissionPolicyBinding', resource: 'validatingadmissionpolicybindings', namespaced: false, categories: ['api-extensions'] },
  ]),
  ...group('apiextensions.k8s.io', 'v1', [
    { kind: 'CustomResourceDefinition', resource: 'customresourcedefinitions', namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'], subresources: ['status'] },
  ]),
  ...group('apiregistration.k8s.io', 'v1', [
    { kind: 'APIService', resource: 'apiservices', namespaced: false, categories: ['api-extensions'], subresources: ['status'] },
  ]),
  ...group('apps', 'v1', [
    { kind: 'Deployment', resource: 'deployments', namespaced: true, shortNames: ['deploy'], categories: ['all'], subresources: ['status', 'scale'] },
    { kind: 'ReplicaSet', resource: 'replicasets', namespaced: true, shortNames: ['rs'], categories: ['all'], subresources: ['status', 'scale'] },
    { kind: 'StatefulSet', resource: 'statefulsets', namespaced: true, shortNames: ['sts'], categories: ['all'], subresources: ['status', 'scale'] },
    { kind: 'DaemonSet', resource: 'daemonsets', namespaced: true, shortNames: ['ds'], categories: ['all'], subresources: ['status'] },
    { kind: 'ControllerRevision', resource: 'controllerrevisions', namespaced: true },
  ]),
  ...group('authentication.k8s.io', 'v1', [
    { kind: 'SelfSubjectReview', resource: 'selfsubjectreviews', namespaced: false, verbs: CREATE_ONLY },
    { kind: 'TokenReview', resource: 'tokenreviews', namespaced: false, verbs: CREATE_ONLY },
  ]),
  ...group('authorization.k8s.io', 'v1', [
    { kind: 'LocalSubjectAccessReview', resource: 'localsubjectaccessreviews', namespaced: true, verbs: CREATE_ONLY },
    { kind: 'SelfSubjectAccessReview', resource: 'selfsubjectaccessreviews', namespaced: false, verbs: CREATE_ONLY },
    { kind: 'SelfSubjectRulesReview', resource: 'selfsubjectrulesreviews', namespaced: false, verbs: CREATE_ONLY },
    { kind: 'SubjectAccessReview', resource: 'subjectaccessreviews', namespaced: false, verbs: CREATE_ONLY },
  ]),
  ...group('autoscaling', 'v2', [
    { kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers', namespaced: true, shortNames: ['hpa'], categories: ['all'], subresources: ['status'] },
  ]),
  // the same objects as autoscaling/v2, converted on the way in and out (apiserver/registry/hpa-conversion.ts)
  ...group('autoscaling', 'v1', [
    { kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers', namespaced: true, shortNames: ['hpa'], categories: ['all'], subresources: ['status'] },
  ]),
  ...group('batch', 'v1', [
    { kind: 'Job', resource: 'jobs', namespaced: true, categories: ['all'], subresources: ['status'] },
    { kind: 'CronJob', resource: 'cronjobs', namespaced: true, shortNames: ['cj'], categories: ['all'], subresources: ['status'] },
  ]),
  ...group('certificates.k8s.io', 'v1', [
    { kind: 'CertificateSigningRequest', resource: 'certificatesigningrequests', namespaced: false, shortNames: ['csr'], subresources: ['status', 'approval'] },
  ]),
  ...group('coordination.k8s.io', 'v1', [{ kind: 'Lease', resource: 'leases', namespaced: true }]),
  ...group('discovery.k8s.io', 'v1', [{ kind: 'EndpointSlice', resource: 'endpointslices', namespaced: true }]),
  ...group('events.k8s.io', 'v1', [{ kind: 'Event', resource: 'events', namespaced: true, shortNames: ['ev'] }]),
  ...group('flowcontrol.apiserver.k8s.io', 'v1', [
    { kind: 'FlowSchema', resource: 'flowschemas', namespaced: false, subresources: ['status'] },
    { kind: 'PriorityLevelConfiguration', resource: 'prioritylevelconfigurations', namespaced: false, subresources: ['status'] },
  ]),
  ...group('networking.k8s.io', 'v1', [
    { kind: 'Ingress', resource: 'ingresses', namespaced: true, shortNames: ['ing'], subresources: ['status'] },
    { kind: 'IngressClass', resource: 'ingressclasses', namespaced: false },
    { kind: 'NetworkPolicy', resource: 'networkpolicies', namespaced: true, shortNames: ['netpol'] },
  ]),
  ...group('policy', 'v1', [
    { kind: 'PodDisruptionBudget', resource: 'poddisruptionbudgets', namespaced: true, shortNames: ['pdb'], subresources: ['status'] },
  ]),
  ...group('rbac.authorization.k8s.io', 'v1', [
    { kind: 'ClusterRoleBinding', resource: 'clusterrolebindings', namespaced: false },
    { kind: 'ClusterRole', resource: 'clusterroles', namespaced: false },
    { kind: 'RoleBinding', resource: 'rolebindings', namespaced: true },
    { kind: 'Role', resource: 'roles', namespaced: true },
  ]),
  ...group('storage.k8s.io', 'v1', [
    { kind: 'CSIDriver', resource: 'csidrivers', namespaced: false },
    { kind: 'CSINode', resource: 'csinodes', namespaced: false },
    { kind: 'StorageClass', resource: 'storageclasses', namespaced: false, shortNames: ['sc'] },
    { kind: 'VolumeAttachment', resource: 'volumeattachments', namespaced: false, subresources: ['status'] },
  ]),
  ...group('scheduling.k8s.io', 'v1', [{ kind: 'PriorityClass', resource: 'priorityclasses', namespaced: false, shortNames: ['pc'] }]),
];

/** Group names in the order discovery lists them (core first). */
export const GROUP_ORDER = [
  '',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'scheduling.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
];

export function findResource(group: string, version: string, resource: string): ResourceInfo | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.resource === resource);
}

export function findKind(group: string, version: string, kind: string): ResourceInfo | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.kind === kind);
}
