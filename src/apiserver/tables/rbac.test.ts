import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/object.js';
import { clusterRoleBindingTable, roleBindingTable } from './rbac.js';
import { tableConvertorFor } from './registry.js';

const NOW = new Date('2024-05-01T12:00:00Z');

void test('role bindings show the role and, wide, their subjects by kind', () => {
  const rb = {
    metadata: { name: 'rb', creationTimestamp: '2024-05-01T11:00:00Z' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [
      { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'default', namespace: 'ns1' },
    ],
  } as unknown as KubeObject;
  assert.deepEqual(roleBindingTable.cells(rb, NOW), ['rb', 'ClusterRole/view', '60m', 'alice, bob', 'devs', 'ns1/default']);
  assert.deepEqual(
    roleBindingTable.columns.map((c) => [c.name, c.priority]),
    [['Name', 0], ['Role', 0], ['Age', 0], ['Users', 1], ['Groups', 1], ['ServiceAccounts', 1]],
  );
  assert.deepEqual(clusterRoleBindingTable.cells({ ...rb, subjects: undefined } as KubeObject, NOW), ['rb', 'ClusterRole/view', '60m', '', '', '']);
});

void test('roles have no printer upstream: Name and Created At', () => {
  const cols = tableConvertorFor({ group: 'rbac.authorization.k8s.io', resource: 'roles' }).columns.map((c) => c.name);
  assert.deepEqual(cols, ['Name', 'Created At']);
  assert.equal(tableConvertorFor({ group: 'rbac.authorization.k8s.io', resource: 'rolebindings' }), roleBindingTable);
});
