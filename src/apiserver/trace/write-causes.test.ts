import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WriteCauses } from './write-causes.js';
import { FakeClock } from '../../base/fake-clock.js';

const cause = (spanId: string) => ({ traceId: 'a'.repeat(32), spanId, traceFlags: 1 });

describe('WriteCauses', () => {
  it('remembers the cause of each write by resourceVersion and by key', () => {
    const causes = new WriteCauses();
    causes.record(5, '/registry/pods/ns/a', 'create', cause('1'));
    causes.record(6, '/registry/pods/ns/a', 'update', cause('2'));
    assert.equal(causes.causeOf(6)?.cause.spanId, '2');
    assert.deepEqual(causes.writesOf('/registry/pods/ns/a').map((w) => w.revision), [5, 6]);
    assert.equal(causes.causeOf(7), undefined);
  });

  it('evicts the oldest writes first, by count and by age', () => {
    const clock = new FakeClock(0);
    const causes = new WriteCauses({ maxWrites: 2, maxAgeMs: 1000, clock });
    causes.record(1, 'k1', 'create', cause('1'));
    causes.record(2, 'k2', 'create', cause('2'));
    causes.record(3, 'k1', 'update', cause('3'));
    assert.equal(causes.causeOf(1), undefined);
    assert.deepEqual(causes.writesOf('k1').map((w) => w.revision), [3]);
    clock.set(2000);
    causes.record(4, 'k3', 'create', cause('4'));
    assert.equal(causes.size(), 1);
    assert.deepEqual(causes.writesOf('k2'), []);
  });
});
