import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';

/**
 * Upstream's default RBAC policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy):
 * the roles every cluster starts with, and who holds them. Reconciled into
 * storage at every start (see reconcile-policy.ts).
 */

const G = 'rbac.authorization.k8s.io';
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const EVENTS_WRITE: PolicyRule = { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] };

function rule(verbs: string[], groups: string[], resources: string[], resourceNames?: string[]): PolicyRule {
  return resourceNames ? { apiGroups: groups, resources, resourceNames, verbs } : { apiGroups: groups, resources, verbs };
}
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ nonResourceURLs, verbs });

function clusterRole(name: string, rules: PolicyRule[] | undefined, labels: Record<string, string> = {}, aggregateFrom?: string): ClusterRole {
  const role: ClusterRole = {
    apiVersion: `${G}/v1`,
    kind: 'ClusterRole',
    metadata: { name, labels: { ...BOOTSTRAP_LABELS, ...labels }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
  };
  if (rules) role.rules = rules;
  if (aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [aggregateFrom]: 'true' } }] };
  return role;
}

const AGG_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
const AGG_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
const AGG_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

export const user = (name: string): Subject => ({ kind: 'User', apiGroup: G, name });
export const group = (name: string): Subject => ({ kind: 'Group', apiGroup: G, name });
export const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

export const BOOTSTRAP_CLUSTER_ROLES: readonly ClusterRole[] = [
  clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
  clusterRole('system:discovery', [urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])]),
  clusterRole('system:monitoring', [urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'])]),
  clusterRole('system:basic-user', [
    rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
    rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
  ]),
  clusterRole('system:public-info-viewer', [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])]),
  clusterRole('admin', undefined, {}, AGG_ADMIN),
  clusterRole('edit', undefined, { [AGG_ADMIN]: 'true' }, AGG_EDIT),
  clusterRole('view', undefined, { [AGG_EDIT]: 'true' }, AGG_VIEW),
  clusterRole(
    'system:aggregate-to-admin',
    [rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), rule(READ_WRITE, [G], ['rolebindings', 'roles'])],
    { [AGG_ADMIN]: 'true' },
  ),
  clusterRole(
    'system:aggregate-to-edit',
    [
      rule(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
      rule(['impersonate'], [''], ['serviceaccounts']),
      rule(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
      rule(['create'], [''], ['pods/eviction']),
      rule(WRITE, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(WRITE, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
      rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(WRITE, ['batch'], ['cronjobs', 'jobs']),
      rule(WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale']),
      rule(WRITE, ['policy'], ['poddisruptionbudgets']),
      rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
      rule(READ_WRITE, ['coordination.k8s.io'], ['leases']),
    ],
    { [AGG_EDIT]: 'true' },
  ),
  clusterRole(
    'system:aggregate-to-view',
    [
      rule(READ, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
      rule(READ, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
      rule(READ, [''], ['namespaces']),
      rule(READ, ['discovery.k8s.io'], ['endpointslices']),
      rule(READ, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
      rule(READ, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale']),
      rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
    ],
    { [AGG_VIEW]: 'true' },
  ),
  clusterRole('system:heapster', [rule(READ, [''], ['events', 'namespaces', 'nodes', 'pods']), rule(READ, ['extensions'], ['deployments'])]),
  clusterRole('system:node', [
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews']),
    rule(READ, [''], ['services']),
    rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
    rule(['patch', 'update'], [''], ['nodes/status']),
    rule(['patch', 'update'], [''], ['nodes']),
    rule(['create', 'patch', 'update'], [''], ['events']),
    rule(READ, [''], ['pods']),
    rule(['create', 'delete'], [''], ['pods']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(['create'], [''], ['pods/eviction']),
    rule(READ, [''], ['configmaps', 'secrets']),
    rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get'], [''], ['endpoints']),
    rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
    rule(['create', 'delete', 'get', 'patch', 'update'], ['coordination.k8s.io'], ['leases']),
    rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
    rule(['create'], [''], ['serviceaccounts/token']),
    rule(['get', 'patch', 'update'], [''], ['persistentvolumeclaims/status']),
    rule(READ, ['storage.k8s.io'], ['csidrivers']),
    rule(['create', 'delete', 'get', 'patch', 'update'], ['storage.k8s.io'], ['csinodes']),
    rule(READ, ['node.k8s.io'], ['runtimeclasses']),
  ]),
  clusterRole('system:node-problem-detector', [rule(['get'], [''], ['nodes']), rule(['patch'], [''], ['nodes/status']), EVENTS_WRITE]),
  clusterRole('system:kubelet-api-admin', [rule(READ, [''], ['nodes']), rule(['proxy'], [''], ['nodes']), rule(['*'], [''], ['nodes/log', 'nodes/metrics', 'nodes/proxy', 'nodes/stats'])]),
  clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests'])]),
  clusterRole('system:auth-delegator', [rule(['create'], ['authentication.k8s.io'], ['tokenreviews']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])]),
  clusterRole('system:kube-aggregator', [rule(READ, [''], ['endpoints', 'services'])]),
  clusterRole('system:kube-controller-manager', [
    EVENTS_WRITE,
    rule(['create'], ['coordination.k8s.io'], ['leases']),
    rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
    rule(['create'], [''], ['secrets', 'serviceaccounts']),
    rule(['delete'], [''], ['secrets']),
    rule(['get'], [''], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts']),
    rule(['update'], [''], ['secrets', 'serviceaccounts']),
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    rule(['list', 'watch'], ['*'], ['*']),
    rule(['create'], [''], ['serviceaccounts/token']),
  ]),
  clusterRole('system:kube-dns', [rule(['list', 'watch'], [''], ['endpoints', 'services'])]),
  // the CoreDNS add-on's role (its manifest's, not upstream's bootstrap), held by skiff's DNS component
  clusterRole('system:coredns', [rule(['list', 'watch'], [''], ['endpoints', 'services', 'pods', 'namespaces']), rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices'])]),
  // kube-router's role (its manifest's, for what its network policy controller reads), held by skiff's netpol component
  clusterRole('system:kube-router', [rule(READ, [''], ['namespaces', 'pods', 'nodes']), rule(READ, ['networking.k8s.io'], ['networkpolicies']), EVENTS_WRITE]),
  clusterRole('system:kube-scheduler', [
    EVENTS_WRITE,
    rule(['create'], ['coordination.k8s.io'], ['leases']),
    rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler']),
    rule(READ, [''], ['nodes']),
    rule(['delete', 'get', 'list', 'watch'], [''], ['pods']),
    rule(['create'], [''], ['bindings', 'pods/binding']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(READ, [''], ['replicationcontrollers', 'services']),
    rule(READ, ['apps', 'extensions'], ['replicasets']),
    rule(READ, ['apps'], ['statefulsets']),
    rule(READ, ['policy'], ['poddisruptionbudgets']),
    rule(READ, [''], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    rule(READ, ['storage.k8s.io'], ['csinodes']),
    rule(READ, [''], ['namespaces']),
    rule(READ, ['storage.k8s.io'], ['csidrivers']),
    rule(READ, ['storage.k8s.io'], ['csistoragecapacities']),
  ]),
  clusterRole('system:volume-scheduler', [
    rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumes']),
    rule(READ, ['storage.k8s.io'], ['storageclasses']),
    rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumeclaims']),
  ]),
  clusterRole('system:node-proxier', [
    rule(['list', 'watch'], [''], ['endpoints', 'services']),
    rule(READ, [''], ['nodes']),
    EVENTS_WRITE,
    rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
  ]),
  clusterRole('system:persistent-volume-provisioner', [
    rule(['create', 'delete', 'get', 'list', 'watch'], [''], ['persistentvolumes']),
    rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
    rule(READ, ['storage.k8s.io'], ['storageclasses']),
    rule(['watch'], [''], ['events']),
    EVENTS_WRITE,
  ]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'])]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'])]),
  ...['kube-apiserver-client', 'kube-apiserver-client-kubelet', 'kubelet-serving', 'legacy-unknown'].map((signer) =>
    clusterRole(`system:certificates.k8s.io:${signer}-approver`, [rule(['approve'], ['certificates.k8s.io'], ['signers'], [`kubernetes.io/${signer}`])]),
  ),
  // skiff's simulated nodes (`skiff simulate`): watch nodes and pods as itself, write as each node by impersonating it, so the
  // Node authorizer and NodeRestriction judge every write; RBAC cannot limit user names by prefix, hence users without names
  clusterRole('system:skiff:simulator', [
    rule(READ, [''], ['nodes', 'pods']),
    rule(['impersonate'], [''], ['users']),
    rule(['impersonate'], [''], ['groups'], ['system:nodes']),
  ]),
  clusterRole('system:service-account-issuer-discovery', [urls(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])]),
];

function clusterRoleBinding(roleName: string, subjects: Subject[], name = roleName): ClusterRoleBinding {
  return {
    apiVersion: `${G}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { ...BOOTSTRAP_LABELS }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    roleRef: { apiGroup: G, kind: 'ClusterRole', name: roleName },
    subjects,
  };
}

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly ClusterRoleBinding[] = [
  clusterRoleBinding('cluster-admin', [group('system:masters')]),
  clusterRoleBinding('system:monitoring', [group('system:monitoring')]),
  clusterRoleBinding('system:discovery', [group('system:authenticated')]),
  clusterRoleBinding('system:basic-user', [group('system:authenticated')]),
  clusterRoleBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
  // upstream leaves system:node unbound: the Node authorizer grants nodes what they need
  clusterRoleBinding('system:node', []),
  clusterRoleBinding('system:node-proxier', [user('system:kube-proxy')]),
  clusterRoleBinding('system:kube-controller-manager', [user('system:kube-controller-manager')]),
  clusterRoleBinding('system:kube-dns', [serviceAccount('kube-system', 'kube-dns')]),
  clusterRoleBinding('system:coredns', [user('system:coredns'), serviceAccount('kube-system', 'coredns')]),
  clusterRoleBinding('system:kube-router', [user('system:kube-router')]),
  clusterRoleBinding('system:kube-scheduler', [user('system:kube-scheduler')]),
  clusterRoleBinding('system:volume-scheduler', [user('system:kube-scheduler')]),
  clusterRoleBinding('system:skiff:simulator', [user('system:skiff:simulator')]),
  clusterRoleBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
];

function role(namespace: string, name: string, rules: PolicyRule[]): Role {
  return {
    apiVersion: `${G}/v1`,
    kind: 'Role',
    metadata: { name, namespace, labels: { ...BOOTSTRAP_LABELS }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    rules,
  };
}

function roleBinding(namespace: string, roleName: string, subjects: Subject[], name = roleName): RoleBinding {
  return {
    apiVersion: `${G}/v1`,
    kind: 'RoleBinding',
    metadata: { name, namespace, labels: { ...BOOTSTRAP_LABELS }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    roleRef: { apiGroup: G, kind: 'Role', name: roleName },
    subjects,
  };
}

export const BOOTSTRAP_ROLES: readonly Role[] = [
  role('kube-system', 'extension-apiserver-authentication-reader', [rule(READ, [''], ['configmaps'], ['extension-apiserver-authentication'])]),
  role('kube-system', 'system::leader-locking-kube-controller-manager', [
    rule(['watch'], [''], ['configmaps']),
    rule(['get', 'update'], [''], ['configmaps'], ['kube-controller-manager']),
  ]),
  role('kube-system', 'system::leader-locking-kube-scheduler', [rule(['watch'], [''], ['configmaps']), rule(['get', 'update'], [''], ['configmaps'], ['kube-scheduler'])]),
  // skiff's DNS component publishes the kube-dns Service and its own endpoints (CoreDNS runs as a pod behind a selector instead)
  role('kube-system', 'system:coredns:kube-dns', [
    rule(['create'], [''], ['services']), rule(['get', 'update', 'patch'], [''], ['services'], ['kube-dns']),
    rule(['create'], ['discovery.k8s.io'], ['endpointslices']), rule(['get', 'update', 'patch', 'delete'], ['discovery.k8s.io'], ['endpointslices']),
  ]),
  role('kube-public', 'system:controller:bootstrap-signer', [rule(READ, [''], ['configmaps']), rule(['update'], [''], ['configmaps'], ['cluster-info']), EVENTS_WRITE]),
];

export const BOOTSTRAP_ROLE_BINDINGS: readonly RoleBinding[] = [
  roleBinding('kube-system', 'extension-apiserver-authentication-reader', [user('system:kube-controller-manager'), user('system:kube-scheduler')], 'system::extension-apiserver-authentication-reader'),
  roleBinding('kube-system', 'system::leader-locking-kube-controller-manager', [user('system:kube-controller-manager'), serviceAccount('kube-system', 'kube-controller-manager')]),
  roleBinding('kube-system', 'system::leader-locking-kube-scheduler', [user('system:kube-scheduler'), serviceAccount('kube-system', 'kube-scheduler')]),
  roleBinding('kube-system', 'system:coredns:kube-dns', [user('system:coredns'), serviceAccount('kube-system', 'coredns')]),
  roleBinding('kube-public', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer')]),
];
