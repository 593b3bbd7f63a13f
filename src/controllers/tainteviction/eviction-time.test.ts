import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Taint } from 'kubernetes-types/core/v1.js';
import { evictionTime, taintedSince } from './eviction-time.js';

const unreachable: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-01-01T00:00:00Z' };
const T0 = Date.parse(unreachable.timeAdded!);

test('untolerated NoExecute taints evict at once; tolerationSeconds delays; no limit keeps the pod', () => {
  assert.deepEqual(evictionTime(undefined, [unreachable], T0), { kind: 'now' });
  assert.deepEqual(evictionTime([{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }], [unreachable], T0), { kind: 'at', at: T0 + 5000 });
  assert.deepEqual(evictionTime([{ operator: 'Exists' }], [unreachable], T0), { kind: 'never' });
  assert.deepEqual(evictionTime([{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: -3 }], [unreachable], T0), { kind: 'now' });
  // the smallest of the tolerations used wins
  const both = [{ operator: 'Exists', tolerationSeconds: 60 }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 10 }];
  assert.deepEqual(evictionTime(both, [unreachable], T0), { kind: 'at', at: T0 + 10_000 });
  // NoSchedule taints never evict
  assert.deepEqual(evictionTime(undefined, [{ key: 'x', effect: 'NoSchedule' }], T0), { kind: 'never' });
});

test('taintedSince is the latest stamp among NoExecute taints', () => {
  assert.equal(taintedSince([unreachable, { key: 'b', effect: 'NoExecute', timeAdded: '2026-01-01T00:01:00Z' }, { key: 'c', effect: 'NoSchedule' }]), T0 + 60_000);
  assert.equal(taintedSince([{ key: 'c', effect: 'NoExecute' }]), undefined);
});
