import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole } from 'kubernetes-types/rbac/v1.js';
import { aggregateRules } from './aggregate-rules.js';

const role = (name: string, labels: Record<string, string>, rules: ClusterRole['rules'], agg?: ClusterRole['aggregationRule']): ClusterRole => ({
  metadata: { name, labels },
  rules,
  aggregationRule: agg,
});

test('an aggregated role takes the distinct rules of the roles it selects, in name order', () => {
  const pods = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
  const deploys = { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] };
  const agg = role('monitoring', {}, [], { clusterRoleSelectors: [{ matchLabels: { 'aggregate-to-monitoring': 'true' } }] });
  const all = [
    agg,
    role('z-endpoints', { 'aggregate-to-monitoring': 'true' }, [deploys, pods]),
    role('a-pods', { 'aggregate-to-monitoring': 'true' }, [pods]),
    role('unrelated', {}, [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }]),
  ];
  assert.deepEqual(aggregateRules(agg, all), [pods, deploys]);
});

test('a role never aggregates itself, and several selectors are ORed', () => {
  const self = role('edit', { 'aggregate-to-edit': 'true' }, [{ apiGroups: ['x'], resources: ['y'], verbs: ['z'] }], {
    clusterRoleSelectors: [{ matchLabels: { 'aggregate-to-edit': 'true' } }, { matchExpressions: [{ key: 'extra', operator: 'Exists' }] }],
  });
  const extra = role('extra', { extra: '' }, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
  assert.deepEqual(aggregateRules(self, [self, extra]), extra.rules);
});
