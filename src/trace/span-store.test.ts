import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { SpanStore } from './span-store.js';
import { FakeClock } from '../base/fake-clock.js';

function span(traceId: string, spanId: string): ReadableSpan {
  return { spanContext: () => ({ traceId, spanId, traceFlags: 1 }) } as unknown as ReadableSpan;
}

describe('SpanStore', () => {
  it('evicts the least recently touched trace first when over its span count', () => {
    const store = new SpanStore({ maxSpans: 3 });
    store.add(span('a', '1'));
    store.add(span('b', '2'));
    store.add(span('a', '3'));
    store.add(span('c', '4'));
    assert.equal(store.trace('b'), undefined, 'b was touched least recently');
    assert.equal(store.trace('a')?.length, 2);
    assert.deepEqual(store.size(), { traces: 2, spans: 3 });
  });

  it('forgets traces older than its age bound', () => {
    const clock = new FakeClock(0);
    const store = new SpanStore({ maxAgeMs: 1000, clock });
    store.add(span('a', '1'));
    clock.set(600);
    store.add(span('b', '2'));
    clock.set(1200);
    assert.equal(store.trace('a'), undefined);
    assert.equal(store.trace('b')?.length, 1);
  });

  it('keeps the newest spans of one trace larger than the store', () => {
    const store = new SpanStore({ maxSpans: 2 });
    for (const id of ['1', '2', '3']) store.add(span('a', id));
    assert.deepEqual(store.trace('a')?.map((s) => s.spanContext().spanId), ['2', '3']);
  });

  it('keeps nothing with a bound of zero', () => {
    const store = new SpanStore({ maxSpans: 0 });
    store.add(span('a', '1'));
    assert.deepEqual(store.size(), { traces: 0, spans: 0 });
  });
});

describe('SpanStore batches', () => {
  const batch = (traceId: string, ids: string[]) => {
    let expanded = 0;
    return {
      traceId,
      size: ids.length,
      spans: () => (expanded++, ids.map((id) => span(traceId, id))),
      expanded: () => expanded,
    };
  };

  it('counts a batch as its spans and expands it only when the trace is read', () => {
    const store = new SpanStore({ maxSpans: 10 });
    const b = batch('a', ['1', '2', '3']);
    store.addBatch(b);
    store.add(span('a', '4'));
    assert.deepEqual(store.size(), { traces: 1, spans: 4 });
    assert.equal(b.expanded(), 0);
    assert.deepEqual(store.trace('a')?.map((s) => s.spanContext().spanId), ['1', '2', '3', '4']);
  });

  it('evicts whole batches', () => {
    const store = new SpanStore({ maxSpans: 4 });
    store.addBatch(batch('a', ['1', '2', '3']));
    store.addBatch(batch('b', ['4', '5']));
    assert.equal(store.trace('a'), undefined);
    assert.deepEqual(store.size(), { traces: 1, spans: 2 });
    store.addBatch(batch('b', ['6', '7', '8']));
    assert.deepEqual(store.trace('b')?.map((s) => s.spanContext().spanId), ['6', '7', '8'], 'one trace over the bound keeps its newest batches');
  });
});
