import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messagesFor, updateMessagesFor } from './test-support.js';

const G = 'rbac.authorization.k8s.io';

test('roles: names are path segments, rules need verbs, groups and resources', () => {
  const role = {
    kind: 'Role',
    metadata: { name: 'system:controller:x', namespace: 'default' },
    rules: [
      { apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'], verbs: ['*'] },
    ],
  };
  assert.deepEqual(messagesFor(role, G), []);
  assert.deepEqual(messagesFor({ kind: 'Role', metadata: { name: 'a/b', namespace: 'default' }, rules: [{ resources: ['pods'] }] }, G), [
    "metadata.name: Invalid value: \"a/b\": may not contain '/'",
    'rules[0].verbs: Required value: verbs must contain at least one value',
    'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
  ]);
  assert.deepEqual(messagesFor({ kind: 'Role', metadata: { name: 'r', namespace: 'default' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] }, G), [
    'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
  ]);
});

test('cluster roles: non-resource URLs, aggregation rules', () => {
  assert.deepEqual(messagesFor({ kind: 'ClusterRole', metadata: { name: 'c' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez*'] }] }, G), []);
  assert.deepEqual(messagesFor({ kind: 'ClusterRole', metadata: { name: 'c' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/x'], resources: ['pods'] }] }, G), [
    'rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs',
  ]);
  assert.deepEqual(messagesFor({ kind: 'ClusterRole', metadata: { name: 'c' }, aggregationRule: { clusterRoleSelectors: [] } }, G), [
    'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
  ]);
  const agg = { kind: 'ClusterRole', metadata: { name: 'monitoring' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } }] } };
  assert.deepEqual(messagesFor(agg, G), []);
});

test('bindings: roleRef and subjects, defaulted api groups', () => {
  const rb = {
    kind: 'RoleBinding',
    metadata: { name: 'rb', namespace: 'default' },
    roleRef: { kind: 'Role', name: 'pod-reader' },
    subjects: [{ kind: 'User', name: 'jane' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'default' }],
  };
  assert.deepEqual(messagesFor(rb, G), []);
  assert.deepEqual(
    messagesFor({ kind: 'RoleBinding', metadata: { name: 'rb', namespace: 'default' }, roleRef: { apiGroup: 'x', kind: 'Pod' }, subjects: [{ kind: 'Robot', name: 'r' }, { kind: 'ServiceAccount', name: 'Bad_Name', apiGroup: G }] }, G),
    [
      'roleRef.apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io"',
      'roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"',
      'roleRef.name: Required value',
      'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      'subjects[1].name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
      'subjects[1].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""',
    ],
  );
  const crb = { kind: 'ClusterRoleBinding', metadata: { name: 'crb' }, roleRef: { kind: 'Role', name: 'x' }, subjects: [{ kind: 'ServiceAccount', name: 'default' }] };
  assert.deepEqual(messagesFor(crb, G), [
    'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    'subjects[0].namespace: Required value',
  ]);
  const changed = { ...rb, metadata: { ...rb.metadata, resourceVersion: '1' }, roleRef: { kind: 'ClusterRole', name: 'view' } };
  const old = { ...rb, metadata: { ...rb.metadata, resourceVersion: '1' } };
  assert.equal(updateMessagesFor(changed, old, G).length, 1);
  assert.match(updateMessagesFor(changed, old, G)[0], /^roleRef: Invalid value: .*: cannot change roleRef$/);
});
