import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../api/object.js';
import { findResource } from '../../api/resources.js';
import { ApiError } from '../../machinery/api-error.js';
import { Cacher } from '../../storage/cacher/cacher.js';
import { MemoryStorage } from '../../storage/memory/memory-storage.js';
import { SqliteStorage } from '../../storage/sqlite/sqlite-storage.js';
import { TempDbs } from '../../storage/sqlite/testing/temp-db.js';
import type { GetResult, KeyValue, Storage } from '../../storage/storage.js';
import { freezeSharedObjects } from './codec.js';
import { defaultStrategy } from './default-strategy.js';
import { RegistryStore } from './registry-store.js';
import { watchObjects, type ObjectEvent } from './watch.js';

const info = findResource('apps', 'v1', 'deployments')!;
const KEY = '/registry/deployments/ns/d';

function deployment(replicas: number, extra: Partial<KubeObject> = {}): KubeObject {
  const labels = { app: 'd' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'ns' },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    ...extra,
  };
}

const replicas = (obj: KubeObject | undefined) => (obj?.spec as { replicas?: number } | undefined)?.replicas;

/** Memory storage whose "watch cache" answers a pinned (possibly stale) value; counts storage reads. */
class PinnedCacheStorage extends MemoryStorage {
  pinned: KeyValue | undefined;
  reads = 0;

  getCached(key: string): KeyValue | undefined {
    return key === this.pinned?.key ? this.pinned : undefined;
  }

  override async get(key: string): Promise<GetResult> {
    this.reads++;
    return super.get(key);
  }
}

const storeOn = (storage: Storage) => new RegistryStore({ info, strategy: defaultStrategy(info), storage });
const write = { dryRun: false };

/** A store whose cache holds the deployment at 1 replica while the storage has moved on to 2. */
async function staleCache(): Promise<{ store: RegistryStore; storage: PinnedCacheStorage; first: string; second: string }> {
  const storage = new PinnedCacheStorage();
  const store = storeOn(storage);
  const created = await store.create(deployment(1), write);
  storage.pinned = (await storage.get(KEY)).kv;
  const { object } = await store.update('ns', 'd', deployment(2), write);
  storage.reads = 0;
  return { store, storage, first: created.metadata!.resourceVersion!, second: object.metadata!.resourceVersion! };
}

async function rejectsWith(promise: Promise<unknown>, code: number, message?: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, code);
    if (message !== undefined) assert.equal(err.message, message);
    return true;
  });
}

const temp = new TempDbs();
// every shared decoded object is frozen here: an update path that changes one fails
before(() => freezeSharedObjects(true));
after(() => {
  freezeSharedObjects(false);
  temp.cleanup();
});

describe('guaranteedUpdate from a stale cached object', () => {
  it('redoes an update whose write lost to a newer revision on the storage object', async () => {
    const { store, storage } = await staleCache();
    const seen: (number | undefined)[] = [];
    const { object } = await store.guaranteedUpdate(
      'ns',
      'd',
      (current) => {
        seen.push(replicas(current));
        current!.metadata!.labels = { touched: 'yes' };
        return current!;
      },
      write,
    );
    assert.deepEqual(seen, [1, 2], 'first on the cached object, then on the storage one');
    assert.equal(replicas(object), 2);
    assert.deepEqual(object.metadata?.labels, { touched: 'yes' });
    assert.equal(storage.reads, 0, 'the lost write answered the current value');
  });

  it('checks a resourceVersion precondition only the stale cache fails again on the storage object', async () => {
    const { store, storage, second } = await staleCache();
    const { object } = await store.update('ns', 'd', deployment(3, { metadata: { name: 'd', namespace: 'ns', resourceVersion: second } }), write);
    assert.equal(replicas(object), 3);
    assert.equal(storage.reads, 1);
  });

  it('answers 409 with upstream text for a precondition the storage object fails too', async () => {
    const { store, first } = await staleCache();
    const stale = deployment(3, { metadata: { name: 'd', namespace: 'ns', resourceVersion: first } });
    await rejectsWith(
      store.update('ns', 'd', stale, write),
      409,
      'Operation cannot be fulfilled on deployments.apps "d": the object has been modified; please apply your changes to the latest version and try again',
    );
    assert.equal(replicas(await store.get('ns', 'd')), 2);
  });

  it('does not take a no-op against the stale object for one', async () => {
    const { store, storage } = await staleCache();
    let calls = 0;
    await store.guaranteedUpdate(
      'ns',
      'd',
      (current) => {
        calls++;
        (current!.spec as { replicas: number }).replicas = 1;
        return current!;
      },
      write,
    );
    assert.equal(calls, 2);
    assert.equal(storage.reads, 1);
    assert.equal(replicas(await store.get('ns', 'd')), 1, 'the storage held 2 replicas: the write was needed');
  });

  it('answers NotFound for an object the storage no longer holds', async () => {
    const { store, storage } = await staleCache();
    await storage.delete(KEY);
    await rejectsWith(store.update('ns', 'd', deployment(5), write), 404);
  });

  it('answers a dry run from the storage object', async () => {
    const { store, storage } = await staleCache();
    const { object } = await store.update('ns', 'd', (current) => ({ ...current!, metadata: { ...current!.metadata, labels: { dry: 'run' } } }), { dryRun: true });
    assert.equal(replicas(object), 2);
    assert.equal(storage.reads, 1);
    assert.equal((await store.get('ns', 'd')).metadata?.labels, undefined);
  });
});

describe('guaranteedUpdate from a fresh cached object', () => {
  it('answers an error of the update function after one storage read confirms the object', async () => {
    const storage = new PinnedCacheStorage();
    const store = storeOn(storage);
    await store.create(deployment(1), write);
    storage.pinned = (await storage.get(KEY)).kv;
    storage.reads = 0;
    let calls = 0;
    const refused = store.guaranteedUpdate(
      'ns',
      'd',
      () => {
        calls++;
        throw new ApiError(422, 'Invalid', 'no');
      },
      write,
    );
    await rejectsWith(refused, 422, 'no');
    assert.equal(calls, 1);
    assert.equal(storage.reads, 1);
  });
});

/** Counts the reads a Cacher passes on to its storage. */
class CountingMemory extends MemoryStorage {
  reads = 0;
  override async get(key: string): Promise<GetResult> {
    this.reads++;
    return super.get(key);
  }
}

/** Waits (with a deadline) until the watch cache holds the key at `revision`. */
async function cached(cacher: Cacher, key: string, revision: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (String(cacher.getCached(key)?.modRevision) !== revision) {
    assert.ok(Date.now() < deadline, `the cache did not reach ${key} at ${revision}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('updates through the watch cache', () => {
  it('read no storage while the cache is fresh, and change no shared object (all kinds of update)', async () => {
    const memory = new CountingMemory();
    const cacher = new Cacher(memory);
    const store = storeOn(cacher);
    try {
      await cacher.list('/registry/deployments/');
      let rv = (await store.create(deployment(1), { ...write, fieldManager: 'test' })).metadata!.resourceVersion!;
      const steps: ((rv: string) => Promise<{ object: KubeObject }>)[] = [
        (rv) => store.update('ns', 'd', deployment(2, { metadata: { name: 'd', namespace: 'ns', resourceVersion: rv } }), { ...write, fieldManager: 'put' }),
        () => store.update('ns', 'd', deployment(2, { status: { replicas: 2, observedGeneration: 2 } }), { ...write, subresource: 'status', fieldManager: 'status' }),
        () => store.update('ns', 'd', (current) => ({ ...current!, metadata: { ...current!.metadata, annotations: { patched: 'yes' } } }), { ...write, fieldManager: 'patch' }),
        () => store.guaranteedUpdate('ns', 'd', (current) => ((current!.spec as { paused?: boolean }).paused = true, current!), write),
      ];
      for (const step of steps) {
        await cached(cacher, KEY, rv);
        const before = memory.reads;
        rv = (await step(rv)).object.metadata!.resourceVersion!;
        assert.equal(memory.reads, before, 'the update read the cache, not the storage');
      }
      const final = await store.get('ns', 'd');
      assert.equal(replicas(final), 2);
      assert.deepEqual(final.status, { replicas: 2, observedGeneration: 2 });
      assert.deepEqual(final.metadata?.annotations, { patched: 'yes' });
      assert.equal((final.spec as { paused?: boolean }).paused, true);
      assert.equal(final.metadata?.generation, 2, 'the PUT changed the spec; guaranteedUpdate leaves generation to its caller');
      assert.deepEqual(final.metadata?.managedFields?.map((m) => m.manager).sort(), ['patch', 'put', 'status', 'test']);
    } finally {
      await cacher.close();
    }
  });

  it('on SQLite, hands watchers the very object the write decoded, and shares the previous one', async () => {
    const cacher = new Cacher(SqliteStorage.open({ path: temp.path() }));
    const store = storeOn(cacher);
    const controller = new AbortController();
    try {
      // the cache runs before the create, so it holds the value the create decoded
      await cacher.list('/registry/deployments/');
      const created = await store.create(deployment(1), write);
      const seen: KubeObject[] = [];
      const filter = (obj: KubeObject) => (seen.push(obj), true);
      const watch = watchObjects(store, 'ns', { resourceVersion: created.metadata!.resourceVersion, filter, signal: controller.signal });
      const next = watch.next();
      const { object } = await store.update('ns', 'd', deployment(4), write);
      const event = (await next).value as ObjectEvent;
      assert.equal(event.type, 'MODIFIED');
      assert.equal(event.object, object, 'one decode for the write and its watchers');
      const [current, previous] = seen;
      assert.equal(current, object);
      assert.equal(replicas(previous), 1);
      assert.equal(previous!.metadata?.resourceVersion, object.metadata?.resourceVersion, "the previous object at the event's revision, as upstream");
      assert.equal(previous!.spec, created.spec, 'the previous value was decoded once, when it was written');
    } finally {
      controller.abort();
      await cacher.close();
    }
  });
});
