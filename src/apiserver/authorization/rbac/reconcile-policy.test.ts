import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole, ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import { reconcileBinding, reconcileRole } from './reconcile-policy.js';
import { BOOTSTRAP_CLUSTER_ROLES, BOOTSTRAP_CLUSTER_ROLE_BINDINGS, group } from './bootstrap-policy.js';

const expected = BOOTSTRAP_CLUSTER_ROLES.find((r) => r.metadata?.name === 'system:basic-user')!;

test('missing roles are created; a current one is left alone', () => {
  assert.deepEqual(reconcileRole(undefined, expected), { action: 'create', object: expected });
  assert.deepEqual(reconcileRole(structuredClone(expected), expected), { action: 'none' });
});

test('missing rules are added without removing what users added', () => {
  const existing: ClusterRole = structuredClone(expected);
  existing.rules = [existing.rules![0], { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }];
  existing.metadata!.labels = { team: 'x' };
  const r = reconcileRole(existing, expected);
  assert.equal(r.action, 'update');
  const obj = (r as { object: ClusterRole }).object;
  assert.deepEqual(obj.rules, [...existing.rules, { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] }]);
  assert.deepEqual(obj.metadata?.labels, { 'kubernetes.io/bootstrapping': 'rbac-defaults', team: 'x' });
});

test('autoupdate=false protects an object; aggregated roles only get selectors', () => {
  const existing: ClusterRole = structuredClone(expected);
  existing.rules = [];
  existing.metadata!.annotations = { 'rbac.authorization.kubernetes.io/autoupdate': 'false' };
  assert.deepEqual(reconcileRole(existing, expected), { action: 'none' });
  const view = BOOTSTRAP_CLUSTER_ROLES.find((r) => r.metadata?.name === 'view')!;
  const aggregated: ClusterRole = { ...structuredClone(view), rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
  assert.deepEqual(reconcileRole(aggregated, view), { action: 'none' });
});

test('bindings gain missing subjects; a different roleRef is recreated', () => {
  const crb = BOOTSTRAP_CLUSTER_ROLE_BINDINGS.find((b) => b.metadata?.name === 'system:public-info-viewer')!;
  const existing: ClusterRoleBinding = { ...structuredClone(crb), subjects: [group('system:authenticated'), group('extra')] };
  const r = reconcileBinding(existing, crb);
  assert.equal(r.action, 'update');
  assert.deepEqual((r as { object: ClusterRoleBinding }).object.subjects, [group('system:authenticated'), group('extra'), group('system:unauthenticated')]);
  assert.equal(reconcileBinding({ ...structuredClone(crb), roleRef: { ...crb.roleRef, name: 'other' } }, crb).action, 'recreate');
});
