import { after, before, describe } from 'node:test';
import { ConformanceFixture } from './conformance/fixture.js';
import type { OpenStorage } from './conformance/fixture.js';
import { describeWrites } from './conformance/write-cases.js';
import { describeLists } from './conformance/list-cases.js';
import { describeWatches } from './conformance/watch-cases.js';
import { describeCompaction } from './conformance/compaction-cases.js';
import { describeConcurrency } from './conformance/concurrency-cases.js';

export type { OpenStorage } from './conformance/fixture.js';

/**
 * The behaviour every Storage backend must show (etcd v3 semantics). Tests
 * use only the interface and keep their keys under a random prefix each, so
 * one shared etcd can serve them; they never assume that a revision is
 * exactly the previous one plus one, since other clients may write.
 */
export function describeStorageConformance(name: string, open: OpenStorage): void {
  describe(`Storage conformance: ${name}`, () => {
    const fixture = new ConformanceFixture(open);
    before(() => fixture.setUp());
    after(() => fixture.tearDown());
    describeWrites(fixture);
    describeLists(fixture);
    describeWatches(fixture);
    describeCompaction(fixture);
    describeConcurrency(fixture);
  });
}
