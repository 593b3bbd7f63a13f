import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeStorageConformance } from '../conformance.js';
import { UnavailableError } from '../errors.js';
import { EtcdStorage } from './etcd-storage.js';
import { parseEtcdEndpoints } from './etcd-endpoints.js';
import { etcdMissingReason, startEtcdCluster, type EtcdCluster } from './testing/etcd-cluster.js';

const missing = etcdMissingReason();
// Locally, a machine without etcd skips (saying why); in CI a missing etcd fails the run.
const skip = missing !== undefined && !process.env.CI ? `skipped: ${missing}` : false;
if (skip) console.log(`# etcd storage tests ${skip}`);

const bytes = (text: string) => new TextEncoder().encode(text);

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

  describe('EtcdStorage', () => {
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
