import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscalerBehavior } from 'kubernetes-types/autoscaling/v2.js';
import { FakeClock } from '../../base/fake-clock.js';
import { ScaleRecommendations } from './scale-recommendations.js';

const FIVE_MINUTES = 300_000;

test('without behavior: a scale up goes at most to max(2 × current, 4), then to maxReplicas', () => {
  const r = new ScaleRecommendations(new FakeClock(), FIVE_MINUTES);
  const a = r.normalize('ns/a', { currentReplicas: 1, desiredReplicas: 10, minReplicas: 1, maxReplicas: 10 });
  assert.equal(a.replicas, 4);
  assert.deepEqual(a.scalingLimited, { status: 'True', reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' });
  assert.equal(a.ableToScale.reason, 'ReadyForNewScale');
  const b = r.normalize('ns/b', { currentReplicas: 3, desiredReplicas: 10, minReplicas: 1, maxReplicas: 5 });
  assert.equal(b.replicas, 5);
  assert.equal(b.scalingLimited.reason, 'TooManyReplicas');
  const c = r.normalize('ns/c', { currentReplicas: 3, desiredReplicas: 0, minReplicas: 2, maxReplicas: 5 });
  assert.equal(c.replicas, 2);
  assert.deepEqual(c.scalingLimited, { status: 'True', reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' });
  const d = r.normalize('ns/d', { currentReplicas: 3, desiredReplicas: 4, minReplicas: 1, maxReplicas: 5 });
  assert.deepEqual({ replicas: d.replicas, ...d.scalingLimited }, { replicas: 4, status: 'False', reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' });
});

test('without behavior: a scale down waits for the downscale stabilization window', async () => {
  const clock = new FakeClock();
  const r = new ScaleRecommendations(clock, FIVE_MINUTES);
  r.recordInitial('k', 3);
  const first = r.normalize('k', { currentReplicas: 3, desiredReplicas: 1, minReplicas: 1, maxReplicas: 5 });
  assert.equal(first.replicas, 3);
  assert.equal(first.ableToScale.reason, 'ScaleDownStabilized');
  await clock.advance(200_000);
  assert.equal(r.normalize('k', { currentReplicas: 3, desiredReplicas: 2, minReplicas: 1, maxReplicas: 5 }).replicas, 3);
  await clock.advance(101_000);
  // the initial 3 has left the window; the highest recent proposal (2) rules
  assert.equal(r.normalize('k', { currentReplicas: 3, desiredReplicas: 1, minReplicas: 1, maxReplicas: 5 }).replicas, 2);
  await clock.advance(FIVE_MINUTES);
  const last = r.normalize('k', { currentReplicas: 2, desiredReplicas: 1, minReplicas: 1, maxReplicas: 5 });
  assert.equal(last.replicas, 1);
  assert.equal(last.ableToScale.reason, 'ReadyForNewScale');
});

test('behavior: scale-down window 0 and a Pods policy allow one pod per period, using recorded scale events', async () => {
  const clock = new FakeClock();
  const r = new ScaleRecommendations(clock, FIVE_MINUTES);
  const behavior: HorizontalPodAutoscalerBehavior = { scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } };
  r.recordInitial('k', 5);
  const a = r.normalize('k', { currentReplicas: 5, desiredReplicas: 1, minReplicas: 1, maxReplicas: 10, behavior });
  assert.equal(a.replicas, 4);
  assert.deepEqual(a.scalingLimited, { status: 'True', reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' });
  r.recordScale('k', behavior, 5, 4);
  await clock.advance(30_000);
  assert.equal(r.normalize('k', { currentReplicas: 4, desiredReplicas: 1, minReplicas: 1, maxReplicas: 10, behavior }).replicas, 4);
  await clock.advance(31_000);
  assert.equal(r.normalize('k', { currentReplicas: 4, desiredReplicas: 1, minReplicas: 1, maxReplicas: 10, behavior }).replicas, 3);
  // minReplicas binds before the policy does
  const floor = r.normalize('k2', { currentReplicas: 2, desiredReplicas: 0, minReplicas: 2, maxReplicas: 10, behavior });
  assert.equal(floor.replicas, 2);
});

test('behavior: the default scale-down window is the controller flag', async () => {
  const clock = new FakeClock();
  const r = new ScaleRecommendations(clock, 60_000);
  const behavior: HorizontalPodAutoscalerBehavior = { scaleDown: { policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } };
  r.recordInitial('k', 4);
  const a = r.normalize('k', { currentReplicas: 4, desiredReplicas: 1, minReplicas: 1, maxReplicas: 10, behavior });
  assert.equal(a.replicas, 4);
  assert.equal(a.ableToScale.reason, 'ScaleDownStabilized');
  await clock.advance(61_000);
  assert.equal(r.normalize('k', { currentReplicas: 4, desiredReplicas: 1, minReplicas: 1, maxReplicas: 10, behavior }).replicas, 1);
});

test('behavior: scale-up policies select Max, Min or Disabled; Percent rounds up', () => {
  const r = new ScaleRecommendations(new FakeClock(), FIVE_MINUTES);
  const up = (selectPolicy: string) => ({ scaleUp: { selectPolicy, stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 50, periodSeconds: 15 }] } });
  assert.equal(r.normalize('a', { currentReplicas: 1, desiredReplicas: 20, minReplicas: 1, maxReplicas: 30, behavior: up('Max') }).replicas, 5);
  assert.equal(r.normalize('b', { currentReplicas: 1, desiredReplicas: 20, minReplicas: 1, maxReplicas: 30, behavior: up('Min') }).replicas, 2);
  const disabled = r.normalize('c', { currentReplicas: 1, desiredReplicas: 20, minReplicas: 1, maxReplicas: 30, behavior: up('Disabled') });
  assert.equal(disabled.replicas, 1);
  assert.equal(disabled.scalingLimited.reason, 'ScaleUpLimit');
  const capped = r.normalize('d', { currentReplicas: 10, desiredReplicas: 20, minReplicas: 1, maxReplicas: 12, behavior: up('Max') });
  assert.deepEqual([capped.replicas, capped.scalingLimited.reason], [12, 'TooManyReplicas']);
});

test('behavior: replicas added within a period count against its policy', async () => {
  const clock = new FakeClock();
  const r = new ScaleRecommendations(clock, FIVE_MINUTES);
  const behavior: HorizontalPodAutoscalerBehavior = { scaleUp: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } };
  assert.equal(r.normalize('k', { currentReplicas: 1, desiredReplicas: 9, minReplicas: 1, maxReplicas: 10, behavior }).replicas, 3);
  r.recordScale('k', behavior, 1, 3);
  await clock.advance(15_000);
  assert.equal(r.normalize('k', { currentReplicas: 3, desiredReplicas: 9, minReplicas: 1, maxReplicas: 10, behavior }).replicas, 3);
  await clock.advance(46_000);
  assert.equal(r.normalize('k', { currentReplicas: 3, desiredReplicas: 9, minReplicas: 1, maxReplicas: 10, behavior }).replicas, 5);
});

test('behavior: a scale-up window holds the lowest recent recommendation', async () => {
  const clock = new FakeClock();
  const r = new ScaleRecommendations(clock, FIVE_MINUTES);
  const behavior: HorizontalPodAutoscalerBehavior = { scaleUp: { stabilizationWindowSeconds: 60 }, scaleDown: { stabilizationWindowSeconds: 0 } };
  r.recordInitial('k', 2);
  const a = r.normalize('k', { currentReplicas: 2, desiredReplicas: 6, minReplicas: 1, maxReplicas: 10, behavior });
  assert.equal(a.replicas, 2);
  assert.equal(a.ableToScale.reason, 'ScaleUpStabilized');
  await clock.advance(61_000);
  assert.equal(r.normalize('k', { currentReplicas: 2, desiredReplicas: 6, minReplicas: 1, maxReplicas: 10, behavior }).replicas, 6);
  r.forget('k');
  r.recordInitial('k', 2);
  assert.equal(r.normalize('k', { currentReplicas: 2, desiredReplicas: 6, minReplicas: 1, maxReplicas: 10, behavior }).replicas, 2);
});
