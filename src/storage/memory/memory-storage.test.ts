import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeStorageConformance } from '../conformance.js';
import { UnavailableError } from '../errors.js';
import { MemoryStorage } from './memory-storage.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describeStorageConformance('memory', async () => {
  const storage = new MemoryStorage();
  return { storage, close: () => storage.close() };
});

describe('MemoryStorage', () => {
  it('keeps its own copy of written bytes', async () => {
    const storage = new MemoryStorage();
    const value = bytes('abc');
    await storage.create('/k', value);
    value[0] = 0x7a;
    assert.equal(new TextDecoder().decode((await storage.get('/k')).kv!.value), 'abc');
    await storage.close();
  });

  it('forgets a deleted key at compaction, but keeps a tombstone at the compacted revision', async () => {
    const storage = new MemoryStorage();
    await storage.create('/a', bytes('1'));
    const deleted = await storage.delete('/a');
    await storage.compact(deleted.revision);
    const controller = new AbortController();
    const events = storage.watch('/', { startRevision: deleted.revision, signal: controller.signal })[Symbol.asyncIterator]();
    const first = await events.next();
    assert.equal(first.done ? undefined : first.value.type, 'DELETE');
    controller.abort();
    await storage.create('/b', bytes('2'));
    await storage.compact(await storage.currentRevision());
    assert.deepEqual((await storage.list('/')).kvs.map((kv) => kv.key), ['/b']);
    await storage.close();
  });

  it('refuses use after close', async () => {
    const storage = new MemoryStorage();
    await storage.close();
    await assert.rejects(storage.get('/k'), UnavailableError);
  });
});
