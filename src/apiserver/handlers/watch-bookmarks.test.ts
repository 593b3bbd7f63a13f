import assert from 'node:assert/strict';
import https from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Cacher } from '../../storage/cacher/cacher.js';
import { SqliteStorage } from '../../storage/sqlite/index.js';
import { startInProcessServer, type InProcessServer } from '../in-process-server.test-util.js';

interface Event {
  type: string;
  object: { kind?: string; code?: number; metadata?: { name?: string; resourceVersion?: string } };
}

/** A watch whose events can be awaited by predicate, with a deadline. */
function openWatch(s: InProcessServer, path: string) {
  const events: Event[] = [];
  let wake: (() => void) | undefined;
  let buffer = '';
  const req = https.get({ host: '127.0.0.1', port: s.port, path, ...s.tlsOptions() }, (res) => {
    res.on('data', (d: Buffer) => {
      buffer += d.toString();
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buffer.slice(0, nl)) as Event);
        buffer = buffer.slice(nl + 1);
        wake?.();
      }
    });
  });
  req.on('error', () => {});
  return {
    events,
    async waitFor(what: string, pred: (e: Event) => boolean, timeoutMs = 10_000): Promise<Event> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find(pred);
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${events.length} events, the last ${JSON.stringify(events.slice(-2))}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
    close: () => req.destroy(),
  };
}

const rvOf = (e: Event) => Number(e.object.metadata?.resourceVersion);
const configMap = (name: string, app: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app } } });

for (const watchCache of [true, false]) {
  describe(`watch bookmarks carry the store's resourceVersion (${watchCache ? 'watch cache' : 'storage watch'})`, () => {
    let s: InProcessServer;
    before(async () => {
      s = await startInProcessServer({
        watch: { bookmarkIntervalMs: 100 },
        storage: (dir) => {
          const sqlite = SqliteStorage.open({ path: join(dir, 'state.db') });
          return watchCache ? new Cacher(sqlite, { progressIntervalMs: 50 }) : sqlite;
        },
      });
    });
    after(() => s?.stop());

    const create = async (path: string, body: unknown): Promise<number> => {
      const r = await s.request('POST', path, { body });
      assert.equal(r.status, 201, r.text);
      return Number((r.json().metadata as { resourceVersion: string }).resourceVersion);
    };

    it('a watcher whose selector matches nothing sees its bookmarks move on with other writes, and resumes from one after compaction', async () => {
      const start = await create('/api/v1/namespaces/default/configmaps', configMap('first', 'other'));
      const quiet = openWatch(s, `/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&labelSelector=app%3Dnothing&resourceVersion=${start}`);
      try {
        // writes the selector drops, in another namespace, and of another resource
        await create('/api/v1/namespaces/default/configmaps', configMap('second', 'other'));
        await create('/api/v1/namespaces/kube-public/configmaps', configMap('elsewhere', 'nothing'));
        const last = await create('/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'unrelated' } });
        const bookmark = await quiet.waitFor(`a bookmark at ${last} or later`, (e) => e.type === 'BOOKMARK' && rvOf(e) >= last);
        assert.deepEqual(quiet.events.filter((e) => e.type !== 'BOOKMARK'), [], 'nothing matched the selector');
        assert.deepEqual(Object.keys(bookmark.object), ['kind', 'apiVersion', 'metadata']);
        assert.equal(bookmark.object.kind, 'ConfigMap');
        // bookmarks never go back
        const rvs = quiet.events.map(rvOf);
        assert.deepEqual(rvs, [...rvs].sort((a, b) => a - b));

        await s.storage.compact(await s.storage.currentRevision());
        const resumed = openWatch(s, `/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&labelSelector=app%3Dnothing&resourceVersion=${rvOf(bookmark)}`);
        try {
          await create('/api/v1/namespaces/default/configmaps', configMap('matching', 'nothing'));
          const added = await resumed.waitFor('the matching config map', (e) => e.type !== 'BOOKMARK');
          assert.deepEqual([added.type, added.object.metadata?.name], ['ADDED', 'matching']);
        } finally {
          resumed.close();
        }
        if (!watchCache) {
          // the client's own resourceVersion is gone: without the bookmark it would have had to relist
          const stale = openWatch(s, `/api/v1/namespaces/default/configmaps?watch=true&labelSelector=app%3Dnothing&resourceVersion=${start}`);
          try {
            const gone = await stale.waitFor('410', (e) => e.type === 'ERROR');
            assert.equal(gone.object.code, 410);
          } finally {
            stale.close();
          }
        }
      } finally {
        quiet.close();
      }
    });
  });
}
