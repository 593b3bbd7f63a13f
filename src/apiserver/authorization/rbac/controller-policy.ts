import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { AUTOUPDATE_ANNOTATION, serviceAccount } from './bootstrap-policy.js';

/**
 * Upstream's controller roles (bootstrappolicy/controller_policy.go): one
 * `system:controller:<name>` ClusterRole per controller, bound to the
 * kube-system service account `<name>` that the controller acts as under
 * `--use-service-account-credentials`; plus the token cleaner's Role in
 * kube-system.
 */

const G = 'rbac.authorization.k8s.io';
const PREFIX = 'system:controller:';
const LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const ANNOTATIONS = { [AUTOUPDATE_ANNOTATION]: 'true' };

const r = (verbs: string[], groups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  resourceNames ? { apiGroups: groups, resources, resourceNames, verbs } : { apiGroups: groups, resources, verbs };
const EVENTS: PolicyRule = r(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);
const READ = ['get', 'list', 'watch'];

const CONTROLLER_RULES: Readonly<Record<string, PolicyRule[]>> = {
  'attachdetach-controller': [
    r(['list', 'watch'], [''], ['persistentvolumes', 'persistentvolumeclaims']),
    r(READ, [''], ['nodes']),
    r(['patch', 'update'], [''], ['nodes/status']),
    r(['list', 'watch'], [''], ['pods']),
    EVENTS,
    r(['get', 'create', 'delete', 'list', 'watch'], ['storage.k8s.io'], ['volumeattachments']),
    r(READ, ['storage.k8s.io'], ['csidrivers']),
    r(READ, ['storage.k8s.io'], ['csinodes']),
  ],
  'clusterrole-aggregation-controller': [r(['escalate', 'get', 'list', 'watch', 'update', 'patch'], [G], ['clusterroles'])],
  'cronjob-controller': [
    r(['get', 'list', 'watch', 'update'], ['batch'], ['cronjobs']),
    r(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], ['batch'], ['jobs']),
    r(['update'], ['batch'], ['cronjobs/status']),
    r(['update'], ['batch'], ['cronjobs/finalizers']),
    r(['list', 'watch', 'delete'], [''], ['pods']),
    EVENTS,
  ],
  'daemon-set-controller': [
    r(READ, ['extensions', 'apps'], ['daemonsets']),
    r(['update'], ['extensions', 'apps'], ['daemonsets/status']),
    r(['update'], ['extensions', 'apps'], ['daemonsets/finalizers']),
    r(['list', 'watch'], [''], ['nodes']),
    r(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
    r(['create'], [''], ['pods/binding']),
    r(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], ['apps'], ['controllerrevisions']),
    EVENTS,
  ],
  'deployment-controller': [
    r(['get', 'list', 'watch', 'update'], ['extensions', 'apps'], ['deployments']),
    r(['update'], ['extensions', 'apps'], ['deployments/status']),
    r(['update'], ['extensions', 'apps'], ['deployments/finalizers']),
    r(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], ['apps', 'extensions'], ['replicasets']),
    r(['get', 'list', 'watch', 'update'], [''], ['pods']),
    EVENTS,
  ],
  'disruption-controller': [
    r(READ, ['extensions', 'apps'], ['deployments']),
    r(READ, ['apps', 'extensions'], ['replicasets']),
    r(READ, [''], ['replicationcontrollers']),
    r(READ, ['policy'], ['poddisruptionbudgets']),
    r(READ, ['apps'], ['statefulsets']),
    r(['update'], ['policy'], ['poddisruptionbudgets/status']),
    r(['patch', 'update'], [''], ['pods/status']),
    r(['get'], ['*'], ['*/scale']),
    EVENTS,
  ],
  'endpoint-controller': [
    r(READ, [''], ['services', 'pods']),
    r(['get', 'list', 'watch', 'create', 'update', 'delete'], [''], ['endpoints']),
    r(['create'], [''], ['endpoints/restricted']),
    EVENTS,
  ],
  'endpointslice-controller': [
    r(READ, [''], ['services', 'pods', 'nodes']),
    r(['update'], [''], ['services/finalizers']),
    r(['get', 'list', 'watch', 'create', 'update', 'delete'], ['discovery.k8s.io'], ['endpointslices']),
    EVENTS,
  ],
  'endpointslicemirroring-controller': [
    r(READ, [''], ['services', 'endpoints']),
    r(['update'], [''], ['services/finalizers']),
    r(['update'], [''], ['endpoints/finalizers']),
    r(['get', 'list', 'watch', 'create', 'update', 'delete'], ['discovery.k8s.io'], ['endpointslices']),
    EVENTS,
  ],
  'ephemeral-volume-controller': [
    r(READ, [''], ['pods']),
    r(['update'], [''], ['pods/finalizers']),
    r(['get', 'list', 'watch', 'create'], [''], ['persistentvolumeclaims']),
    EVENTS,
  ],
  'generic-garbage-collector': [r(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']), EVENTS],
  'horizontal-pod-autoscaler': [
    r(READ, ['autoscaling'], ['horizontalpodautoscalers']),
    r(['update'], ['autoscaling'], ['horizontalpodautoscalers/status']),
    r(['get', 'update'], ['*'], ['*/scale']),
    r(['list', 'watch'], [''], ['pods']),
    r(['list', 'watch'], ['metrics.k8s.io'], ['pods']),
    r(READ, ['custom.metrics.k8s.io'], ['*']),
    r(READ, ['external.metrics.k8s.io'], ['*']),
    EVENTS,
  ],
  'job-controller': [
    r(['get', 'list', 'watch', 'update', 'patch'], ['batch'], ['jobs']),
    r(['update'], ['batch'], ['jobs/status']),
    r(['update'], ['batch'], ['jobs/finalizers']),
    r(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
    EVENTS,
  ],
  'namespace-controller': [
    r(['get', 'list', 'watch', 'delete'], [''], ['namespaces']),
    r(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
    r(['get', 'list', 'watch', 'delete', 'deletecollection'], ['*'], ['*']),
  ],
  'node-controller': [
    r(['get', 'list', 'watch', 'update', 'delete', 'patch'], [''], ['nodes']),
    r(['patch', 'update'], [''], ['nodes/status']),
    r(['patch', 'update'], [''], ['pods/status']),
    r(['list', 'watch', 'get', 'delete'], [''], ['pods']),
    EVENTS,
  ],
  // skiff's built-in local-path provisioner (k3s runs it as a Deployment with a role like this)
  'local-path-provisioner': [
    r(['get', 'list', 'watch', 'create', 'update', 'delete'], [''], ['persistentvolumes']),
    r(['get', 'list', 'watch'], [''], ['persistentvolumeclaims']),
    r(['update'], [''], ['persistentvolumeclaims/status']),
    r(['get', 'list', 'watch', 'create', 'delete'], [''], ['pods']),
    r(['get', 'list', 'watch', 'create'], ['storage.k8s.io'], ['storageclasses']),
    r(READ, [''], ['nodes']),
    EVENTS,
  ],
  'persistent-volume-binder': [
    r(['get', 'list', 'watch', 'update', 'create', 'delete'], [''], ['persistentvolumes']),
    r(['update'], [''], ['persistentvolumes/status']),
    r(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']),
    r(['update'], [''], ['persistentvolumeclaims/status']),
    r(['list', 'watch', 'get', 'create', 'delete'], [''], ['pods']),
    r(READ, ['storage.k8s.io'], ['storageclasses']),
    r(['list', 'watch'], [''], ['nodes']),
    EVENTS,
    r(['watch'], [''], ['events']),
    r(['get'], [''], ['services']),
  ],
  'pod-garbage-collector': [r(['list', 'watch', 'delete'], [''], ['pods']), r(READ, [''], ['nodes']), r(['patch'], [''], ['pods/status'])],
  'replicaset-controller': [
    r(['get', 'list', 'watch', 'update'], ['apps', 'extensions'], ['replicasets']),
    r(['update'], ['apps', 'extensions'], ['replicasets/status']),
    r(['update'], ['apps', 'extensions'], ['replicasets/finalizers']),
    r(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']),
    EVENTS,
  ],
  'replication-controller': [
    r(['get', 'list', 'watch', 'update'], [''], ['replicationcontrollers']),
    r(['update'], [''], ['replicationcontrollers/status']),
    r(['update'], [''], ['replicationcontrollers/finalizers']),
    r(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']),
    EVENTS,
  ],
  'resourcequota-controller': [r(['list', 'watch'], ['*'], ['*']), r(['update'], [''], ['resourcequotas/status']), EVENTS],
  'route-controller': [r(['list', 'watch'], [''], ['nodes']), r(['patch'], [''], ['nodes/status']), EVENTS],
  'service-account-controller': [r(['create'], [''], ['serviceaccounts']), EVENTS],
  'service-controller': [r(READ, [''], ['services']), r(['patch', 'update'], [''], ['services/status']), r(['list', 'watch'], [''], ['nodes']), EVENTS],
  'statefulset-controller': [
    r(['list', 'watch'], [''], ['pods']),
    r(READ, ['apps'], ['statefulsets']),
    r(['update'], ['apps'], ['statefulsets/status']),
    r(['update'], ['apps'], ['statefulsets/finalizers']),
    r(['get', 'create', 'delete', 'update', 'patch'], [''], ['pods']),
    r(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], ['apps'], ['controllerrevisions']),
    r(['get', 'create', 'list', 'watch'], [''], ['persistentvolumeclaims']),
    r(['update', 'delete'], [''], ['persistentvolumeclaims']),
    r(['update'], [''], ['pods/finalizers']),
    EVENTS,
  ],
  'ttl-controller': [r(['update', 'patch', 'list', 'watch'], [''], ['nodes']), EVENTS],
  'certificate-controller': [
    r(['get', 'list', 'watch', 'delete'], ['certificates.k8s.io'], ['certificatesigningrequests']),
    r(['update'], ['certificates.k8s.io'], ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
    r(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
    r(['sign'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/legacy-unknown', 'kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving']),
    r(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    EVENTS,
  ],
  'pvc-protection-controller': [r(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']), r(READ, [''], ['pods']), EVENTS],
  'pv-protection-controller': [r(['get', 'list', 'watch', 'update'], [''], ['persistentvolumes']), EVENTS],
  'ttl-after-finished-controller': [r(['get', 'list', 'watch', 'delete'], ['batch'], ['jobs']), EVENTS],
  'root-ca-cert-publisher': [r(['create', 'update'], [''], ['configmaps']), EVENTS],
  'legacy-service-account-token-cleaner': [r(['get'], [''], ['configmaps'], ['kube-apiserver-legacy-service-account-token-tracking']), r(['patch', 'delete'], [''], ['secrets'])],
};

export const CONTROLLER_CLUSTER_ROLES: readonly ClusterRole[] = Object.entries(CONTROLLER_RULES).map(([name, rules]) => ({
  apiVersion: `${G}/v1`,
  kind: 'ClusterRole',
  metadata: { name: `${PREFIX}${name}`, labels: { ...LABELS }, annotations: { ...ANNOTATIONS } },
  rules,
}));

export const CONTROLLER_CLUSTER_ROLE_BINDINGS: readonly ClusterRoleBinding[] = Object.keys(CONTROLLER_RULES).map((name) => ({
  apiVersion: `${G}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name: `${PREFIX}${name}`, labels: { ...LABELS }, annotations: { ...ANNOTATIONS } },
  roleRef: { apiGroup: G, kind: 'ClusterRole', name: `${PREFIX}${name}` },
  subjects: [serviceAccount('kube-system', name)],
}));

/** Upstream's namespaced controller roles: the token cleaner and bootstrap signer in kube-system. */
export const CONTROLLER_ROLES: readonly Role[] = [
  {
    apiVersion: `${G}/v1`, kind: 'Role',
    metadata: { name: `${PREFIX}token-cleaner`, namespace: 'kube-system', labels: { ...LABELS }, annotations: { ...ANNOTATIONS } },
    rules: [r(['delete', 'get', 'list', 'watch'], [''], ['secrets']), r(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events'])],
  },
  {
    apiVersion: `${G}/v1`, kind: 'Role',
    metadata: { name: `${PREFIX}bootstrap-signer`, namespace: 'kube-system', labels: { ...LABELS }, annotations: { ...ANNOTATIONS } },
    rules: [r(READ, [''], ['secrets'])],
  },
];

export const CONTROLLER_ROLE_BINDINGS: readonly RoleBinding[] = ['token-cleaner', 'bootstrap-signer'].map((name) => ({
  apiVersion: `${G}/v1`, kind: 'RoleBinding',
  metadata: { name: `${PREFIX}${name}`, namespace: 'kube-system', labels: { ...LABELS }, annotations: { ...ANNOTATIONS } },
  roleRef: { apiGroup: G, kind: 'Role', name: `${PREFIX}${name}` },
  subjects: [serviceAccount('kube-system', name)],
}));
