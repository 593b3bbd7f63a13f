import type { KubeObject } from '../../api/object.js';
import type { DeleteResult, GetResult, KeyValue, ListOptions, ListResult, Storage, WatchEvent, WatchOptions, WriteResult } from '../../storage/storage.js';
import { encodeObject } from '../registry/codec.js';
import type { CrdConvert } from './crd-converter.js';

/**
 * The storage one served version of a multi-version CRD sees: objects are
 * written in the storage version and read (get, list, watch) in the served
 * one, converted on the way (upstream converts in the codec the same way).
 * Everything above it (create, update, patch, apply, list, watch) works in
 * the served version unchanged.
 */
export class ConvertingStorage implements Storage {
  constructor(
    private readonly inner: Storage,
    private readonly convert: CrdConvert,
    private readonly servedVersion: string,
    private readonly storageVersion: string,
  ) {}

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  async get(key: string): Promise<GetResult> {
    const res = await this.inner.get(key);
    return res.kv ? { ...res, kv: await this.readOne(res.kv) } : res;
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const res = await this.inner.list(prefix, opts);
    return { ...res, kvs: await this.read(res.kvs) };
  }

  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }

  async create(key: string, value: Uint8Array): Promise<WriteResult> {
    return this.written(await this.inner.create(key, await this.toStorage(value)));
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<WriteResult> {
    return this.written(await this.inner.update(key, await this.toStorage(value), expectedModRevision));
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const res = await this.inner.delete(key, expectedModRevision);
    if (res.succeeded) return { ...res, prev: await this.readOne(res.prev) };
    return res.current ? { ...res, current: await this.readOne(res.current) } : res;
  }

  async *watch(prefix: string, opts: WatchOptions): AsyncIterable<WatchEvent> {
    for await (const ev of this.inner.watch(prefix, opts)) {
      yield { ...ev, kv: await this.readOne(ev.kv), ...(ev.prevKv ? { prevKv: await this.readOne(ev.prevKv) } : {}) };
    }
  }

  watchProgressReliable(): Promise<boolean> {
    return this.inner.watchProgressReliable?.() ?? Promise.resolve(true);
  }

  requestWatchProgress(): boolean {
    return this.inner.requestWatchProgress?.() ?? false;
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  alarms() {
    return this.inner.alarms?.() ?? Promise.resolve([]);
  }

  close(): Promise<void> {
    // the shared storage belongs to the API server
    return Promise.resolve();
  }

  private async written(res: WriteResult): Promise<WriteResult> {
    if (res.succeeded) return { ...res, kv: await this.readOne(res.kv) };
    return res.current ? { ...res, current: await this.readOne(res.current) } : res;
  }

  private async toStorage(value: Uint8Array): Promise<Uint8Array> {
    const obj = parse(value);
    const [stored] = await this.convert([obj], this.storageVersion);
    return stored === obj ? value : encodeObject(stored);
  }

  private async readOne(kv: KeyValue): Promise<KeyValue> {
    return (await this.read([kv]))[0];
  }

  private async read(kvs: KeyValue[]): Promise<KeyValue[]> {
    if (kvs.length === 0) return kvs;
    const objects = kvs.map((kv) => parse(kv.value));
    const converted = await this.convert(objects, this.servedVersion);
    return kvs.map((kv, i) => (converted[i] === objects[i] ? kv : { ...kv, value: encodeObject(converted[i]) }));
  }
}

function parse(value: Uint8Array): KubeObject {
  return JSON.parse(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8')) as KubeObject;
}
