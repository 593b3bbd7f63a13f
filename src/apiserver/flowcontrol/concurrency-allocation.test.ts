import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allocateConcurrency, SeatDemand } from './concurrency-allocation.js';
import { nextFactor, DEFAULT_EVENT_LOOP_GATE } from './event-loop-gate.js';

const near = (actual: number[], expected: number[]) => assert.deepEqual(actual.map((x) => Math.round(x * 1000) / 1000), expected);

describe('seat borrowing', () => {
  it('shares the seats in proportion to the targets when no bound applies', () => {
    near(allocateConcurrency(100, [{ lowerBound: 0, upperBound: 100, target: 30 }, { lowerBound: 0, upperBound: 100, target: 10 }]), [75, 25]);
  });

  it('keeps each level within its lower and upper bounds, the rest shared fairly', () => {
    // the busy level may borrow at most 60; the idle ones keep their lower bounds
    near(
      allocateConcurrency(101, [
        { lowerBound: 24, upperBound: 148, target: 24 },
        { lowerBound: 5, upperBound: 105, target: 5 },
        { lowerBound: 48, upperBound: 96, target: 120 },
      ]),
      [24, 5, 72],
    );
    const capped = allocateConcurrency(101, [
      { lowerBound: 24, upperBound: 148, target: 24 },
      { lowerBound: 5, upperBound: 105, target: 5 },
      { lowerBound: 48, upperBound: 60, target: 120 },
    ]);
    assert.equal(Math.round(capped[2]), 60);
    assert.equal(Math.round(capped.reduce((a, b) => a + b, 0)), 101);
  });

  it('gives the lower bounds when they alone exceed the seats, the upper bounds when those fall short', () => {
    near(allocateConcurrency(10, [{ lowerBound: 8, upperBound: 9, target: 8 }, { lowerBound: 5, upperBound: 9, target: 5 }]), [8, 5]);
    near(allocateConcurrency(100, [{ lowerBound: 8, upperBound: 9, target: 8 }, { lowerBound: 5, upperBound: 9, target: 5 }]), [9, 9]);
  });

  it('measures seat demand over a period: average plus deviation, smoothed; the high watermark', () => {
    let now = 0;
    const d = new SeatDemand(() => now);
    d.set(10);
    now = 10_000;
    d.endPeriod();
    assert.equal(d.smoothed, 10);
    assert.equal(d.highWatermark, 10);
    // half the period at 0, half at 20: average 10, deviation 10; the smoothed demand follows slowly when it falls
    d.set(0);
    now = 15_000;
    d.set(20);
    now = 20_000;
    d.endPeriod();
    assert.equal(d.smoothed, 20);
    assert.equal(d.highWatermark, 20);
    d.set(0);
    now = 30_000;
    d.endPeriod();
    assert.ok(d.smoothed > 19 && d.smoothed < 20, String(d.smoothed));
    // the period began at 20
    assert.equal(d.highWatermark, 20);
    now = 40_000;
    d.endPeriod();
    assert.equal(d.highWatermark, 0);
  });
});

describe('event loop gate', () => {
  it('halves the factor while the loop lags, down to its floor, and grows it back a step at a time', () => {
    const o = DEFAULT_EVENT_LOOP_GATE;
    assert.equal(nextFactor(1, o.targetLagMs + 1, o), 0.5);
    let f = 1;
    for (let i = 0; i < 20; i++) f = nextFactor(f, 500, o);
    assert.equal(f, o.minFactor);
    assert.equal(nextFactor(0.5, o.targetLagMs * 0.75, o), 0.5);
    assert.equal(nextFactor(0.5, 0, o), 0.5 + o.step);
    assert.equal(nextFactor(1, 0, o), 1);
  });
});
