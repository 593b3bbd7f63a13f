import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompactedError } from '../errors.js';
import type { WatchEvent } from '../storage.js';
import type { ConformanceFixture } from './fixture.js';
import { bytes, plain, succeeded, take, text, within } from './fixture.js';

const summary = (e: WatchEvent) => [e.type, e.kv.key, text(e.kv.value), e.kv.modRevision, e.prevKv && text(e.prevKv.value)];

export function describeWatches(fixture: ConformanceFixture): void {
  describe('watches', () => {
    it('replays history from a revision, then delivers live events', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const a = succeeded(await storage.create(`${p}a`, bytes('a1')));
      const a2 = succeeded(await storage.update(`${p}a`, bytes('a2'), a.revision));
      succeeded(await storage.create(`${fixture.prefix()}other`, bytes('x')));
      const b = succeeded(await storage.create(`${p}b`, bytes('b1')));
      const bDeleted = succeeded(await storage.delete(`${p}b`));
      const controller = new AbortController();
      const events = storage.watch(p, { startRevision: a.revision, signal: controller.signal })[Symbol.asyncIterator]();
      try {
        const replayed = await take(events, 4);
        assert.deepEqual(replayed.map(summary), [
          ['PUT', `${p}a`, 'a1', a.revision, undefined],
          ['PUT', `${p}a`, 'a2', a2.revision, 'a1'],
          ['PUT', `${p}b`, 'b1', b.revision, undefined],
          ['DELETE', `${p}b`, 'b1', bDeleted.revision, 'b1'],
        ]);
        assert.deepEqual(plain(replayed[1]!.prevKv), plain(a.kv));
        assert.deepEqual(plain(replayed[3]!.prevKv), plain(b.kv));
        assert.equal(replayed[0]!.prevKv, undefined, 'a create has no previous value');

        const c = succeeded(await storage.create(`${p}c`, bytes('c1')));
        const a3 = succeeded(await storage.update(`${p}a`, bytes('a3'), a2.revision));
        const aDeleted = succeeded(await storage.delete(`${p}a`));
        const live = await take(events, 3);
        assert.deepEqual(live.map(summary), [
          ['PUT', `${p}c`, 'c1', c.revision, undefined],
          ['PUT', `${p}a`, 'a3', a3.revision, 'a2'],
          ['DELETE', `${p}a`, 'a3', aDeleted.revision, 'a3'],
        ]);
        assert.deepEqual(plain(live[1]!.prevKv), plain(a2.kv));
      } finally {
        controller.abort();
      }
    });

    it('with onProgress and progressIntervalMs, reports progress past writes under other prefixes, in order with its events', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const a = succeeded(await storage.create(`${p}a`, bytes('a1')));
      const reported: number[] = [];
      const controller = new AbortController();
      const events = storage.watch(p, { startRevision: a.revision, signal: controller.signal, onProgress: (r) => reported.push(r), progressIntervalMs: 20 })[Symbol.asyncIterator]();
      try {
        const [first] = await take(events, 1);
        assert.equal(first!.kv.modRevision, a.revision);
        if (!(await (storage.watchProgressReliable?.() ?? true))) {
          // A backend whose progress cannot be trusted (an older etcd) reports none: events alone move the watcher.
          const b = succeeded(await storage.create(`${p}b`, bytes('b1')));
          const [second] = await take(events, 1);
          assert.equal(second!.kv.modRevision, b.revision);
          assert.deepEqual(reported, [], 'no progress reported');
          assert.equal(storage.requestWatchProgress?.(), false);
          return;
        }
        const other = succeeded(await storage.create(`${fixture.prefix()}other`, bytes('x')));
        // the consumer is waiting for the next event meanwhile, as a watch handler does
        const next = events.next();
        await within(
          (async () => {
            while (!reported.some((r) => r >= other.revision)) await new Promise((resolve) => setTimeout(resolve, 20));
          })(),
          15_000,
          `progress at ${other.revision}`,
        );
        assert.deepEqual(reported, [...reported].sort((x, y) => x - y), 'progress never goes back');
        const b = succeeded(await storage.create(`${p}b`, bytes('b1')));
        const result = await within(next, 5000, 'the next event');
        assert.equal(result.done ? undefined : result.value.kv.modRevision, b.revision);
      } finally {
        controller.abort();
      }
    });

    it('starts at the given revision, not before', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const a = succeeded(await storage.create(`${p}a`, bytes('a1')));
      const a2 = succeeded(await storage.update(`${p}a`, bytes('a2'), a.revision));
      const controller = new AbortController();
      try {
        const events = storage.watch(p, { startRevision: a2.revision, signal: controller.signal })[Symbol.asyncIterator]();
        const [first] = await take(events, 1);
        assert.equal(first!.kv.modRevision, a2.revision);
      } finally {
        controller.abort();
      }
    });

    it('from revision 0 delivers only new events', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      succeeded(await storage.create(`${p}old`, bytes('old')));
      const controller = new AbortController();
      try {
        const events = storage.watch(p, { startRevision: 0, signal: controller.signal })[Symbol.asyncIterator]();
        succeeded(await storage.create(`${fixture.prefix()}elsewhere`, bytes('x')));
        const created = succeeded(await storage.create(`${p}new`, bytes('new')));
        const [first] = await take(events, 1);
        assert.deepEqual(summary(first!), ['PUT', `${p}new`, 'new', created.revision, undefined]);
      } finally {
        controller.abort();
      }
    });

    it('delivers every event once, in revision order, while writes race the start', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const start = succeeded(await storage.create(`${p}start`, bytes('0'))).revision;
      const controller = new AbortController();
      try {
        const early = await Promise.all(Array.from({ length: 30 }, (_, i) => storage.create(`${p}early${i}`, bytes('e'))));
        const events = storage.watch(p, { startRevision: start, signal: controller.signal })[Symbol.asyncIterator]();
        const pending = Array.from({ length: 30 }, (_, i) => storage.create(`${p}late${i}`, bytes('l')));
        const firstPull = take(events, 61);
        const late = await Promise.all(pending);
        const expected = [start, ...[...early, ...late].map((r) => succeeded(r).revision)].sort((x, y) => x - y);
        const got = (await firstPull).map((e) => e.kv.modRevision);
        assert.deepEqual(got, expected);
      } finally {
        controller.abort();
      }
    });

    it('throws CompactedError from the iterator for a compacted start revision', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const a = succeeded(await storage.create(`${p}a`, bytes('1')));
      const a2 = succeeded(await storage.update(`${p}a`, bytes('2'), a.revision));
      await storage.compact(a2.revision);
      const controller = new AbortController();
      try {
        const events = storage.watch(p, { startRevision: a.revision, signal: controller.signal });
        await assert.rejects(
          within((async () => {
            for await (const _ of events) assert.fail('no event may be delivered from a compacted revision');
          })()),
          CompactedError,
        );
      } finally {
        controller.abort();
      }
    });

    it('ends the iteration when the signal aborts', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const controller = new AbortController();
      const received: WatchEvent[] = [];
      const consumed = (async () => {
        for await (const event of storage.watch(p, { startRevision: 0, signal: controller.signal })) received.push(event);
      })();
      succeeded(await storage.create(`${p}a`, bytes('1')));
      const deadline = Date.now() + 5000;
      while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(received.length, 1);
      controller.abort();
      await within(consumed, 5000, 'the watch loop');
      const aborted = storage.watch(p, { startRevision: 0, signal: AbortSignal.abort() })[Symbol.asyncIterator]();
      assert.equal((await within(aborted.next())).done, true, 'an already aborted signal ends at once');
    });
  });
}
