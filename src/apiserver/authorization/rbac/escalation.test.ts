import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryRbacObjects } from './rbac-objects.js';
import { RbacAuthorizer } from './rbac-authorizer.js';
import { checkBindingWrite, checkRoleWrite, type EscalationDeps } from './escalation.js';
import { uncoveredRules } from './covers.js';

const G = 'rbac.authorization.k8s.io';
const objects = new InMemoryRbacObjects();
objects.put('ClusterRole', { metadata: { name: 'pod-admin' }, rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['*'] }] });
objects.put('ClusterRole', { metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }] });
objects.put('ClusterRole', { metadata: { name: 'binder' }, rules: [{ apiGroups: [G], resources: ['clusterroles'], resourceNames: ['secret-reader'], verbs: ['bind'] }] });
objects.put('RoleBinding', { metadata: { name: 'b', namespace: 'ns' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'pod-admin' }, subjects: [{ kind: 'User', apiGroup: G, name: 'jane' }] });
objects.put('ClusterRoleBinding', { metadata: { name: 'binders' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'binder' }, subjects: [{ kind: 'User', apiGroup: G, name: 'binder' }] });
const rbac = new RbacAuthorizer(objects);
const deps: EscalationDeps = { objects, allowed: async (a) => (await rbac.authorize(a)).decision === 'Allow' };
const jane = { name: 'jane', groups: ['system:authenticated'] };

test('covers: subresource wildcards, resource names and URL prefixes', () => {
  const owner = [
    { apiGroups: [''], resources: ['pods', '*/status'], verbs: ['get', 'list'] },
    { apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'], verbs: ['get'] },
    { nonResourceURLs: ['/logs/*'], verbs: ['get'] },
  ];
  assert.deepEqual(uncoveredRules(owner, [{ apiGroups: [''], resources: ['pods', 'nodes/status'], verbs: ['get'] }]), []);
  assert.deepEqual(uncoveredRules(owner, [{ apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'], verbs: ['get'] }]), []);
  assert.deepEqual(uncoveredRules(owner, [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }]), [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }]);
  assert.deepEqual(uncoveredRules(owner, [{ nonResourceURLs: ['/logs/a', '/metrics'], verbs: ['get'] }]), [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
});

test('a role may only hold rules its author holds', async () => {
  const ok = { metadata: { name: 'r', namespace: 'ns' }, rules: [{ apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }] };
  assert.equal(await checkRoleWrite('Role', ok, jane, deps), undefined);
  const tooMuch = { metadata: { name: 'r', namespace: 'ns' }, rules: [{ apiGroups: [''], resources: ['pods', 'secrets'], verbs: ['get', 'delete'] }] };
  const err = await checkRoleWrite('Role', tooMuch, jane, deps);
  assert.equal(err?.code, 403);
  assert.equal(
    err?.message,
    'roles.rbac.authorization.k8s.io "r" is forbidden: user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
  );
  // the same role elsewhere is an escalation
  assert.equal((await checkRoleWrite('Role', { ...ok, metadata: { name: 'r', namespace: 'other' } }, jane, deps))?.code, 403);
  assert.equal(await checkRoleWrite('Role', tooMuch, { name: 'root', groups: ['system:masters'] }, deps), undefined);
});

test('a binding needs the role rules, or bind on the role', async () => {
  const rb = (role: string) => ({ metadata: { name: 'x', namespace: 'ns' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: role }, subjects: [{ kind: 'User', apiGroup: G, name: 'bob' }] });
  assert.equal(await checkBindingWrite('RoleBinding', rb('pod-admin'), jane, deps), undefined);
  assert.match((await checkBindingWrite('RoleBinding', rb('secret-reader'), jane, deps))?.message ?? '', /is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get" "list"\]\}/);
  const binder = { name: 'binder', groups: ['system:authenticated'] };
  assert.equal(await checkBindingWrite('RoleBinding', rb('secret-reader'), binder, deps), undefined);
  assert.equal((await checkBindingWrite('RoleBinding', rb('pod-admin'), binder, deps))?.code, 403);
  assert.equal((await checkBindingWrite('RoleBinding', rb('missing'), jane, deps))?.message, 'rolebindings.rbac.authorization.k8s.io "x" is forbidden: clusterrole.rbac.authorization.k8s.io "missing" not found');
});
