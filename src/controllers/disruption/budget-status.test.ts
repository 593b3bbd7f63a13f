import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { BudgetError, computeBudgetStatus } from './budget-status.js';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const pod = (name: string, ready = true, extra: Partial<Pod['metadata']> = {}): Pod => ({
  metadata: { name, namespace: 'd', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }], ...extra },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const pdb = (spec: PodDisruptionBudget['spec'], disruptedPods?: Record<string, string>): PodDisruptionBudget => ({
  metadata: { name: 'b', namespace: 'd', generation: 2 },
  spec,
  status: disruptedPods ? { disruptedPods, disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } : undefined,
});
const scale = (replicas: number) => () => ({ uid: 'u1', replicas });

test('minAvailable as a number counts the matching pods', () => {
  const { status } = computeBudgetStatus({ pdb: pdb({ minAvailable: 2 }), pods: [pod('a'), pod('b'), pod('c', false)], controllerScale: scale(3), now: NOW });
  assert.deepEqual([status.currentHealthy, status.desiredHealthy, status.expectedPods, status.disruptionsAllowed, status.observedGeneration], [2, 2, 3, 0, 2]);
});

test('maxUnavailable and percentages count the controllers replicas, rounding up', () => {
  const pods = [pod('a'), pod('b'), pod('c')];
  assert.equal(computeBudgetStatus({ pdb: pdb({ maxUnavailable: 1 }), pods, controllerScale: scale(4), now: NOW }).status.desiredHealthy, 3);
  assert.equal(computeBudgetStatus({ pdb: pdb({ minAvailable: '50%' }), pods, controllerScale: scale(3), now: NOW }).status.desiredHealthy, 2);
  assert.equal(computeBudgetStatus({ pdb: pdb({ maxUnavailable: '34%' }), pods, controllerScale: scale(3), now: NOW }).status.desiredHealthy, 1);
  assert.throws(() => computeBudgetStatus({ pdb: pdb({ maxUnavailable: 1 }), pods, controllerScale: () => undefined, now: NOW }), BudgetError);
});

test('recent evictions stay in disruptedPods and do not count as healthy; old or finished ones are dropped', () => {
  const pods = [pod('a'), pod('b'), pod('c'), pod('gone', true, { deletionTimestamp: '2026-01-01T00:09:59Z' })];
  const { status, recheckAfter } = computeBudgetStatus({
    pdb: pdb({ minAvailable: 1 }, { a: '2026-01-01T00:09:30Z', b: '2026-01-01T00:07:00Z', gone: '2026-01-01T00:09:50Z' }),
    pods,
    controllerScale: scale(3),
    now: NOW,
  });
  assert.deepEqual(status.disruptedPods, { a: '2026-01-01T00:09:30Z' });
  assert.equal(status.currentHealthy, 2);
  assert.equal(status.disruptionsAllowed, 1);
  assert.equal(recheckAfter, 90_000);
});
