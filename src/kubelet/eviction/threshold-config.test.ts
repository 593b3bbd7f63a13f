import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_EVICTION_HARD, EvictionConfigError, formatThresholdQuantity, parseThresholdConfig, thresholdQuantity } from './threshold-config.js';
import { thresholdsMet } from './thresholds.js';
import type { Signal, SignalObservation } from './signals.js';

test('the default hard thresholds are upstream\'s four', () => {
  const t = parseThresholdConfig({});
  assert.equal(DEFAULT_EVICTION_HARD, 'memory.available<100Mi,nodefs.available<10%,imagefs.available<15%,nodefs.inodesFree<5%');
  assert.deepEqual(t.map((x) => [x.signal, x.value, x.gracePeriodMs]), [
    ['memory.available', { quantity: 100 * 1024 * 1024, text: '100Mi' }, 0],
    ['nodefs.available', { percentage: Math.fround(0.1) }, 0],
    ['imagefs.available', { percentage: Math.fround(0.15) }, 0],
    ['nodefs.inodesFree', { percentage: Math.fround(0.05) }, 0],
  ]);
});

test('a given --eviction-hard replaces the defaults; 0% and 100% are ignored; soft thresholds need grace periods', () => {
  const t = parseThresholdConfig({ hard: 'nodefs.available<30%,pid.available<0%', soft: 'memory.available<1.5Gi', softGracePeriod: 'memory.available=1m30s', minimumReclaim: 'nodefs.available=500Mi,memory.available=5%' });
  assert.deepEqual(t.map((x) => x.signal), ['nodefs.available', 'memory.available']);
  assert.equal(t[1].gracePeriodMs, 90_000);
  assert.deepEqual(t[0].minReclaim, { quantity: 500 * 1024 * 1024, text: '500Mi' });
  assert.deepEqual(t[1].minReclaim, { percentage: Math.fround(0.05) });
  assert.deepEqual(parseThresholdConfig({ hard: '' }), []);
});

test('bad eviction flags are refused with upstream\'s messages', () => {
  const bad = (flags: Parameters<typeof parseThresholdConfig>[0], message: RegExp) => assert.throws(() => parseThresholdConfig(flags), (e: unknown) => e instanceof EvictionConfigError && message.test(e.message));
  bad({ hard: 'cpu.available<1' }, /^unsupported eviction signal cpu.available$/);
  bad({ hard: 'memory.available<0' }, /^eviction threshold memory.available must be positive: 0$/);
  bad({ hard: 'nodefs.available<120%' }, /must be <= 100%: 120%$/);
  bad({ hard: 'nodefs.available=10%' }, /want signal<quantity/);
  bad({ hard: 'memory.available<lots' }, /quantities must match/);
  bad({ soft: 'memory.available<1Gi' }, /^grace period must be specified for the soft eviction threshold memory.available$/);
  bad({ soft: 'memory.available<1Gi', softGracePeriod: 'memory.available=soon' }, /invalid eviction grace period/);
  bad({ minimumReclaim: 'nodefs.available=0%' }, /minimum reclaim nodefs.available must be positive/);
});

test('thresholds are met below their value, percentages of capacity; minimum reclaim raises the bar', () => {
  const [nodefs] = parseThresholdConfig({ hard: 'nodefs.available<10%', minimumReclaim: 'nodefs.available=1Ki' });
  const obs = (available: number): Map<Signal, SignalObservation> => new Map([['nodefs.available', { available, capacity: 100_000, time: 0 }]]);
  assert.equal(thresholdQuantity(nodefs.value, 100_000), 10_000);
  assert.equal(thresholdsMet([nodefs], obs(10_000), false).length, 0);
  assert.equal(thresholdsMet([nodefs], obs(9_999), false).length, 1);
  assert.equal(thresholdsMet([nodefs], obs(10_500), true).length, 1, 'still within the minimum reclaim');
  assert.equal(thresholdsMet([nodefs], obs(11_100), true).length, 0);
  assert.equal(thresholdsMet([nodefs], new Map(), false).length, 0, 'no observation, not met');
  assert.equal(formatThresholdQuantity(nodefs.value, 64 * 1024 * 1024), '6710886');
  assert.equal(formatThresholdQuantity({ percentage: 0.25 }, 64 * 1024 * 1024), '16Mi');
  assert.equal(formatThresholdQuantity({ quantity: 104857600, text: '100Mi' }, 1), '100Mi');
  // float32 fractions, as upstream's: 20% of 64 MiB is 13421773, not 13421772
  assert.equal(thresholdQuantity(parseThresholdConfig({ hard: 'nodefs.available<20%' })[0].value, 64 * 1024 * 1024), 13421773);
});
