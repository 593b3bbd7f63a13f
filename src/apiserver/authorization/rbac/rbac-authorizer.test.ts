import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { InMemoryRbacObjects } from './rbac-objects.js';
import { RbacAuthorizer, type RbacAttributes } from './rbac-authorizer.js';
import { rulesFor } from './rule-resolver.js';

const G = 'rbac.authorization.k8s.io';
const objects = new InMemoryRbacObjects();
const clusterRole = (name: string, rules: ClusterRole['rules']) => objects.put('ClusterRole', { metadata: { name }, rules });
const role = (ns: string, name: string, rules: Role['rules']) => objects.put('Role', { metadata: { name, namespace: ns }, rules });
const crb = (name: string, roleName: string, subjects: ClusterRoleBinding['subjects']) =>
  objects.put('ClusterRoleBinding', { metadata: { name }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: roleName }, subjects });
const rb = (ns: string, name: string, kind: 'Role' | 'ClusterRole', roleName: string, subjects: RoleBinding['subjects']) =>
  objects.put('RoleBinding', { metadata: { name, namespace: ns }, roleRef: { apiGroup: G, kind, name: roleName }, subjects });

clusterRole('admin-all', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }]);
clusterRole('pod-reader', [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] }]);
clusterRole('scaler', [{ apiGroups: ['apps'], resources: ['*/scale'], verbs: ['update'] }]);
clusterRole('urls', [{ nonResourceURLs: ['/healthz', '/logs/*'], verbs: ['get'] }]);
role('team-a', 'lease-holder', [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['my-lock'], verbs: ['get', 'update'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
]);
crb('masters', 'admin-all', [{ kind: 'Group', apiGroup: G, name: 'system:masters' }]);
crb('urls', 'urls', [{ kind: 'Group', apiGroup: G, name: 'system:authenticated' }]);
crb('scalers', 'scaler', [{ kind: 'User', apiGroup: G, name: 'scaler' }]);
crb('sa-no-namespace', 'admin-all', [{ kind: 'ServiceAccount', name: 'ghost' }]);
rb('team-a', 'read-pods', 'ClusterRole', 'pod-reader', [
  { kind: 'User', apiGroup: G, name: 'jane' },
  { kind: 'ServiceAccount', name: 'robot' },
  { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
]);
rb('team-a', 'leases', 'Role', 'lease-holder', [{ kind: 'Group', apiGroup: G, name: 'lockers' }]);
rb('team-b', 'dangling', 'Role', 'missing', [{ kind: 'User', apiGroup: G, name: 'jane' }]);

const authorizer = new RbacAuthorizer(objects);

function attrs(user: string, groups: string[], verb: string, resource: string, o: Partial<RbacAttributes> = {}): RbacAttributes {
  const [res, sub] = resource.split('/');
  return {
    user: { name: user, groups: [...groups, 'system:authenticated'] },
    verb,
    resourceRequest: true,
    apiGroup: '',
    resource: res,
    subresource: sub ?? '',
    namespace: '',
    name: '',
    path: '',
    ...o,
  };
}
const url = (user: string, verb: string, path: string): RbacAttributes => ({ ...attrs(user, [], verb, ''), resourceRequest: false, path });

const CASES: [string, RbacAttributes, boolean][] = [
  ['system:masters may do anything anywhere', attrs('admin', ['system:masters'], 'delete', 'nodes', { name: 'n1' }), true],
  ['a URL no rule grants is refused', url('x', 'get', '/metrics'), false],
  ['a RoleBinding to a ClusterRole grants in its namespace', attrs('jane', [], 'list', 'pods', { namespace: 'team-a' }), true],
  ['… and a subresource it names', attrs('jane', [], 'get', 'pods/log', { namespace: 'team-a', name: 'p' }), true],
  ['… but not another subresource', attrs('jane', [], 'create', 'pods/exec', { namespace: 'team-a', name: 'p' }), false],
  ['… nor another verb', attrs('jane', [], 'delete', 'pods', { namespace: 'team-a', name: 'p' }), false],
  ['… nor another namespace', attrs('jane', [], 'list', 'pods', { namespace: 'team-b' }), false],
  ['… nor the cluster scope', attrs('jane', [], 'list', 'pods'), false],
  ['… nor the same resource in another group', attrs('jane', [], 'list', 'pods', { namespace: 'team-a', apiGroup: 'metrics.k8s.io' }), false],
  ['a service account subject defaults to the binding namespace', attrs('system:serviceaccount:team-a:robot', [], 'watch', 'pods', { namespace: 'team-a' }), true],
  ['… and does not match the same name elsewhere', attrs('system:serviceaccount:team-b:robot', [], 'watch', 'pods', { namespace: 'team-a' }), false],
  ['a service account subject with a namespace', attrs('system:serviceaccount:ci:builder', [], 'get', 'pods', { namespace: 'team-a', name: 'p' }), true],
  ['a ClusterRoleBinding service account without a namespace matches nobody', attrs('system:serviceaccount::ghost', [], 'get', 'pods'), false],
  ['resourceNames allow the named object', attrs('u', ['lockers'], 'update', 'leases', { namespace: 'team-a', apiGroup: 'coordination.k8s.io', name: 'my-lock' }), true],
  ['resourceNames refuse other objects', attrs('u', ['lockers'], 'update', 'leases', { namespace: 'team-a', apiGroup: 'coordination.k8s.io', name: 'other' }), false],
  ['resourceNames never match a list', attrs('u', ['lockers'], 'get', 'leases', { namespace: 'team-a', apiGroup: 'coordination.k8s.io' }), false],
  ['a rule without resourceNames allows create', attrs('u', ['lockers'], 'create', 'leases', { namespace: 'team-a', apiGroup: 'coordination.k8s.io' }), true],
  ['*/scale matches any resource scale subresource', attrs('scaler', [], 'update', 'deployments/scale', { namespace: 'x', apiGroup: 'apps', name: 'd' }), true],
  ['*/scale does not match the resource itself', attrs('scaler', [], 'update', 'deployments', { namespace: 'x', apiGroup: 'apps', name: 'd' }), false],
  ['*/scale does not match a longer subresource', attrs('scaler', [], 'update', 'deployments/rescale', { namespace: 'x', apiGroup: 'apps', name: 'd' }), false],
  ['a non-resource URL matches exactly', url('anyone', 'get', '/healthz'), true],
  ['… not with another verb', url('anyone', 'post', '/healthz'), false],
  ['… not a longer path without *', url('anyone', 'get', '/healthz/etcd'), false],
  ['a URL ending in * matches its prefix', url('anyone', 'get', '/logs/kubelet.log'), true],
  ['a binding to a missing role grants nothing', attrs('jane', [], 'get', 'pods', { namespace: 'team-b', name: 'p' }), false],
];

for (const [name, a, allowed] of CASES) {
  test(`RBAC: ${name}`, async () => {
    const d = await authorizer.authorize(a);
    assert.equal(d.decision, allowed ? 'Allow' : 'NoOpinion', JSON.stringify(d));
  });
}

test('reasons name the binding that allowed, or the roles that are missing', () => {
  assert.equal(
    authorizer.decide(attrs('system:serviceaccount:team-a:robot', [], 'list', 'pods', { namespace: 'team-a' })).reason,
    'RBAC: allowed by RoleBinding "read-pods/team-a" of ClusterRole "pod-reader" to ServiceAccount "robot/team-a"',
  );
  assert.equal(
    authorizer.decide(attrs('admin', ['system:masters'], 'get', 'nodes')).reason,
    'RBAC: allowed by ClusterRoleBinding "masters" of ClusterRole "admin-all" to Group "system:masters"',
  );
  assert.deepEqual(authorizer.decide(attrs('jane', [], 'get', 'pods', { namespace: 'team-b', name: 'p' })), {
    decision: 'NoOpinion',
    reason: 'RBAC: role.rbac.authorization.k8s.io "missing" not found',
  });
  assert.deepEqual(authorizer.decide(attrs('nobody', [], 'get', 'pods', { namespace: 'team-a' })), { decision: 'NoOpinion', reason: '' });
});

test('rulesFor lists cluster-wide rules, then the namespace ones', () => {
  const { rules, errors } = rulesFor(objects, { name: 'jane', groups: ['system:authenticated'] }, 'team-a');
  assert.deepEqual(rules, [{ nonResourceURLs: ['/healthz', '/logs/*'], verbs: ['get'] }, { apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] }]);
  assert.deepEqual(errors, []);
  assert.equal(rulesFor(objects, { name: 'jane', groups: [] }, 'team-b').errors.length, 1);
});
