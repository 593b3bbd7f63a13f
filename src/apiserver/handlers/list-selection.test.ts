import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import { decodeProtobufObject, PROTOBUF_CONTENT_TYPE } from '../../api/protobuf/decode-protobuf-object.js';
import { SqliteStorage } from '../../storage/sqlite/index.js';
import { Cacher } from '../../storage/cacher/cacher.js';
import { join } from 'node:path';
import { startInProcessServer, type InProcessServer } from '../in-process-server.test-util.js';

interface PodList {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: { metadata: { name: string; labels?: Record<string, string> }; spec: { nodeName?: string } }[];
}

const pod = (i: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p${String(i).padStart(2, '0')}`, labels: { app: i % 3 === 0 ? 'web' : 'db', shard: String(i % 2) } },
  spec: { nodeName: `node-${i % 4}`, containers: [{ name: 'c', image: 'img' }] },
});

describe('lists with selectors from the watch cache', () => {
  let s: InProcessServer;
  let rv: string;
  before(async () => {
    s = await startInProcessServer({ storage: (dir) => new Cacher(SqliteStorage.open({ path: join(dir, 'state.db') })) });
    for (let i = 0; i < 24; i++) assert.equal((await s.request('POST', '/api/v1/namespaces/default/pods', { body: pod(i) })).status, 201);
    // a changed object and a deleted one: the cache's objects are not all as first written
    assert.equal((await s.request('PATCH', '/api/v1/namespaces/default/pods/p01', { body: { metadata: { labels: { app: 'web' } } }, contentType: 'application/merge-patch+json' })).status, 200);
    assert.equal((await s.request('DELETE', '/api/v1/namespaces/default/pods/p03?gracePeriodSeconds=0')).status, 200);
    rv = ((await s.request('GET', '/api/v1/namespaces/default/pods?limit=1')).json() as unknown as PodList).metadata.resourceVersion;
  });
  after(() => s.stop());

  const expected = (keep: (i: number, labels: Record<string, string>, node: string) => boolean) =>
    Array.from({ length: 24 }, (_, i) => i)
      .filter((i) => i !== 3)
      .filter((i) => {
        const p = pod(i);
        const labels = i === 1 ? { ...p.metadata.labels, app: 'web' } : p.metadata.labels;
        return keep(i, labels, p.spec.nodeName);
      })
      .map((i) => pod(i).metadata.name);

  const selections: [string, string[]][] = [
    ['labelSelector=app%3Dweb', expected((_, l) => l.app === 'web')],
    ['labelSelector=app%3Ddb%2Cshard%3D1', expected((_, l) => l.app === 'db' && l.shard === '1')],
    ['fieldSelector=spec.nodeName%3Dnode-2', expected((_, __, n) => n === 'node-2')],
    ['labelSelector=app%21%3Dweb&fieldSelector=spec.nodeName%21%3Dnode-0', expected((_, l, n) => l.app !== 'web' && n !== 'node-0')],
  ];

  for (const [query, names] of selections) {
    it(`${query}: the same objects from the cache, from storage and page by page, twice`, async () => {
      assert.ok(names.length > 0);
      for (let round = 0; round < 2; round++) {
        for (const at of ['resourceVersion=0', '', `resourceVersion=${rv}&resourceVersionMatch=Exact`]) {
          const list = (await s.request('GET', `/api/v1/namespaces/default/pods?${query}&${at}`)).json() as unknown as PodList;
          assert.deepEqual(
            list.items.map((p) => p.metadata.name),
            names,
            at,
          );
          assert.ok(list.items.every((p) => p.metadata.labels?.app !== undefined));
        }
        const paged: string[] = [];
        let next = '';
        do {
          const page = (await s.request('GET', `/api/v1/namespaces/default/pods?${query}&limit=2${next ? `&continue=${encodeURIComponent(next)}` : ''}`)).json() as unknown as PodList;
          assert.ok(page.items.length <= 2);
          // a filtered list does not know how many of the rest pass
          assert.equal(page.metadata.remainingItemCount, undefined);
          paged.push(...page.items.map((p) => p.metadata.name));
          next = page.metadata.continue ?? '';
        } while (next);
        assert.deepEqual(paged, names);
      }
    });
  }

  it('a protobuf list with a selector has the objects that pass', async () => {
    const body = await new Promise<Buffer>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port: s.port, path: '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb&resourceVersion=0', headers: { accept: PROTOBUF_CONTENT_TYPE }, ...s.tlsOptions() }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks)));
        })
        .on('error', reject);
    });
    const list = decodeProtobufObject(body) as unknown as PodList;
    assert.deepEqual(
      list.items.map((p) => p.metadata.name),
      selections[0]![1],
    );
  });

  it('an unfiltered page counts the objects after it', async () => {
    const page = (await s.request('GET', '/api/v1/namespaces/default/pods?limit=5')).json() as unknown as PodList;
    assert.equal(page.items.length, 5);
    assert.equal(page.metadata.remainingItemCount, 23 - 5);
  });
});
