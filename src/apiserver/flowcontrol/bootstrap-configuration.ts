import type { FlowSchema, PolicyRulesWithSubjects, PriorityLevelConfiguration, Subject } from 'kubernetes-types/flowcontrol/v1.js';

/** Upstream's annotation on bootstrap objects: "true" lets the API server keep their spec as it ships. */
export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';

const API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';

function level(name: string, spec: PriorityLevelConfiguration['spec']): PriorityLevelConfiguration {
  return { apiVersion: API_VERSION, kind: 'PriorityLevelConfiguration', metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } }, spec };
}

function queued(shares: number, lendablePercent: number, queues: number, handSize: number): PriorityLevelConfiguration['spec'] {
  return {
    type: 'Limited',
    limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } } },
  };
}

function schema(name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: 'ByUser' | 'ByNamespace' | undefined, ...rules: PolicyRulesWithSubjects[]): FlowSchema {
  return {
    apiVersion: API_VERSION,
    kind: 'FlowSchema',
    metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    spec: { priorityLevelConfiguration: { name: priorityLevel }, matchingPrecedence, ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}), rules },
  };
}

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccounts = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } }));

/** Every verb on everything, resource and non-resource. */
function everything(subjects: Subject[]): PolicyRulesWithSubjects {
  return {
    subjects,
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  };
}

const KCM = 'system:kube-controller-manager';
const SCHEDULER = 'system:kube-scheduler';
const NODES = 'system:nodes';
const ALL = ['system:unauthenticated', 'system:authenticated'];

/** Always present; restored if changed or deleted (upstream's mandatory configuration). */
export const MANDATORY_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  level('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
  level('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } }),
];

export const MANDATORY_FLOW_SCHEMAS: readonly FlowSchema[] = [
  schema('exempt', 'exempt', 1, undefined, everything(groups('system:masters'))),
  schema('catch-all', 'catch-all', 10000, 'ByUser', everything(groups(...ALL))),
];

/** Created when missing (upstream's suggested configuration). */
export const SUGGESTED_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  level('system', queued(30, 33, 64, 6)),
  level('node-high', queued(40, 25, 64, 6)),
  level('leader-election', queued(10, 0, 16, 4)),
  level('workload-high', queued(40, 50, 128, 6)),
  level('workload-low', queued(100, 90, 128, 6)),
  level('global-default', queued(20, 50, 128, 6)),
];

export const SUGGESTED_FLOW_SCHEMAS: readonly FlowSchema[] = [
  schema('probes', 'exempt', 2, undefined, { subjects: groups(...ALL), nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }),
  schema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users(KCM, SCHEDULER), ...kubeSystemServiceAccounts('*')],
    resourceRules: [{ verbs: ['get', 'create', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] }],
  }),
  schema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [...users(KCM), ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
    resourceRules: [{ verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints'], namespaces: ['*'] }],
  }),
  schema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: kubeSystemServiceAccounts('*'),
    resourceRules: [
      { verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints', 'configmaps'], namespaces: ['*'] },
      { verbs: ['get', 'create', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] },
    ],
  }),
  schema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups(NODES),
    resourceRules: [
      { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], namespaces: ['*'], clusterScope: true },
      { verbs: ['*'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] },
    ],
  }),
  schema('system-nodes', 'system', 500, 'ByUser', everything(groups(NODES))),
  schema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users(KCM))),
  schema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users(SCHEDULER))),
  schema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(kubeSystemServiceAccounts('*'))),
  schema('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups('system:serviceaccounts'))),
  schema('global-default', 'global-default', 9900, 'ByUser', everything(groups(...ALL))),
];
