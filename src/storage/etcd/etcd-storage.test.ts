import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeStorageConformance } from '../conformance.js';
import { UnavailableError } from '../errors.js';
import { Cacher } from '../cacher/cacher.js';
import { EtcdStorage } from './etcd-storage.js';
import { parseEtcdEndpoints } from './etcd-endpoints.js';
import { skipUnless } from '../../testing/requirements.js';
import { etcdMissingReason, startEtcdCluster, type EtcdCluster } from './testing/etcd-cluster.js';

// Locally, a machine without etcd skips (saying why); in CI a missing etcd fails the run.
const skip = skipUnless(etcdMissingReason()).skip ?? false;
if (skip) console.log(`# etcd storage tests skipped: ${skip}`);

const bytes = (text: string) => new TextEncoder().encode(text);
const succeeded = <R extends { succeeded: boolean }>(r: R) => {
  assert.ok(r.succeeded);
  return r;
};

describe('etcd storage', { skip }, () => {
  let cluster: EtcdCluster;
  before(async () => {
    cluster = await startEtcdCluster({ size: 1 });
  });
  after(() => cluster?.stop());

  // Compaction in the suite covers the whole store, so this etcd is the suite's own.
  describeStorageConformance('etcd', async () => {
    const storage = new EtcdStorage({ endpoints: cluster.endpoints });
    return { storage, close: () => storage.close() };
  });

  describeStorageConformance('cacher over etcd', async () => {
    const storage = new Cacher(new EtcdStorage({ endpoints: cluster.endpoints }));
    return { storage, close: () => storage.close() };
  });

  describe('EtcdStorage', () => {
    it('lets the cache prove freshness with progress notifications while other keys change', async () => {
      const ops: string[] = [];
      const cacher = new Cacher(new EtcdStorage({ endpoints: cluster.endpoints, observe: (op) => ops.push(op) }));
      try {
        succeeded(await cacher.create('/registry/widgets/ns/a', bytes('a')));
        await cacher.list('/registry/widgets/');
        for (let i = 0; i < 5; i++) {
          succeeded(await cacher.create(`/registry/leases/ns/l${i}-${Date.now()}`, bytes('l')));
          ops.length = 0;
          const listed = await cacher.list('/registry/widgets/ns/');
          assert.deepEqual(listed.kvs.map((kv) => kv.key), ['/registry/widgets/ns/a']);
          assert.ok(!ops.includes('list'), `served from the cache, not read through (ops: ${ops.join(',')})`);
        }
      } finally {
        await cacher.close();
      }
    });

    it('stores keys as given, so etcdctl sees them', async () => {
      const storage = new EtcdStorage({ endpoints: cluster.endpoints });
      try {
        const created = await storage.create('/registry/pods/default/p1', bytes('{"kind":"Pod"}'));
        assert.ok(created.succeeded);
        const listed = await storage.list('/registry/pods/');
        assert.deepEqual(listed.kvs.map((kv) => kv.key), ['/registry/pods/default/p1']);
      } finally {
        await storage.close();
      }
    });

    it('fails over to a live endpoint and reports Unavailable when none answers', async () => {
      const dead = 'http://127.0.0.1:1';
      const storage = new EtcdStorage({ endpoints: [dead, ...cluster.endpoints] });
      try {
        assert.ok((await storage.currentRevision()) > 0);
      } finally {
        await storage.close();
      }
      const nowhere = new EtcdStorage({ endpoints: [dead], attempts: 2 });
      try {
        await assert.rejects(nowhere.get('/x'), UnavailableError);
      } finally {
        await nowhere.close();
      }
    });
  });
});

describe('parseEtcdEndpoints', () => {
  it('parses one or several members', () => {
    assert.deepEqual(parseEtcdEndpoints('etcd://127.0.0.1:2379', false), ['http://127.0.0.1:2379']);
    assert.deepEqual(parseEtcdEndpoints('etcd://a:1,b:2', true), ['https://a:1', 'https://b:2']);
    assert.throws(() => parseEtcdEndpoints('http://a:1', false));
    assert.throws(() => parseEtcdEndpoints('etcd://a', false));
  });
});
