import { messages } from '../message-schema.js';

/** rbac.authorization.k8s.io/v1. */
export const RBAC_V1 = messages({
  Role: { 1: 'metadata:ObjectMeta', 2: 'rules:PolicyRule[]!' },
  ClusterRole: { 1: 'metadata:ObjectMeta', 2: 'rules:PolicyRule[]!', 3: 'aggregationRule:AggregationRule*' },
  RoleBinding: { 1: 'metadata:ObjectMeta', 2: 'subjects:Subject[]', 3: 'roleRef:RoleRef' },
  ClusterRoleBinding: { 1: 'metadata:ObjectMeta', 2: 'subjects:Subject[]', 3: 'roleRef:RoleRef' },
  PolicyRule: {
    1: 'verbs:s[]!',
    2: 'apiGroups:s[]',
    3: 'resources:s[]',
    4: 'resourceNames:s[]',
    5: 'nonResourceURLs:s[]',
  },
  AggregationRule: { 1: 'clusterRoleSelectors:LabelSelector[]' },
  RoleRef: { 1: 'apiGroup!', 2: 'kind!', 3: 'name!' },
  Subject: { 1: 'kind!', 2: 'apiGroup', 3: 'name!', 4: 'namespace' },
});
