import { CompactedError, FutureRevisionError, UnavailableError } from '../errors.js';
import { LocalWatches } from '../fanout/local-watches.js';
import { lowerBound } from '../key-range.js';
import type { DeleteResult, GetResult, KeyValue, ListOptions, ListResult, Storage, WatchEvent, WatchOptions, WriteResult } from '../storage.js';
import { EventLog } from './event-log.js';
import { KeyIndex } from './key-index.js';

export interface MemoryStorageOptions {
  /** Live events a watcher may have pending before it is closed as too slow. Default 10,000. */
  watchBufferSize?: number;
}

/**
 * Storage held in process memory, with the same etcd semantics as the SQLite
 * and etcd backends (one global revision, guarded writes, history until
 * compaction, watches from any retained revision). Nothing survives close();
 * meant for tests and throwaway servers, where it starts instantly.
 */
export class MemoryStorage implements Storage {
  private readonly index = new KeyIndex();
  private readonly log = new EventLog();
  private readonly watches: LocalWatches;
  private revision = 0;
  private compacted = 0;
  private closed = false;

  constructor(private readonly opts: MemoryStorageOptions = {}) {
    this.watches = new LocalWatches(
      {
        currentRevision: () => this.revision,
        compactedRevision: () => this.compacted,
        closed: () => this.closed,
        readHistory: (prefix, from, to, limit) => this.log.read(prefix, from, to, limit),
      },
      opts.watchBufferSize,
    );
  }

  async currentRevision(): Promise<number> {
    this.ensureOpen();
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    this.ensureOpen();
    return this.compacted;
  }

  async get(key: string): Promise<GetResult> {
    this.ensureOpen();
    const kv = this.index.at(key, this.revision);
    return kv ? { kv, revision: this.revision } : { revision: this.revision };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.ensureOpen();
    const revision = this.readRevision(opts.revision);
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : Infinity;
    const bound = lowerBound(prefix, opts.startAfter);
    const kvs: KeyValue[] = [];
    let remaining = 0;
    for (const key of this.index.keys(prefix, bound.key, bound.inclusive)) {
      const kv = this.index.at(key, revision);
      if (!kv) continue;
      if (kvs.length < limit) kvs.push(kv);
      else remaining++;
    }
    return { kvs, revision, more: remaining > 0, remaining };
  }

  async count(prefix: string): Promise<number> {
    this.ensureOpen();
    let n = 0;
    for (const key of this.index.keys(prefix, prefix, true)) if (this.index.at(key, this.revision)) n++;
    return n;
  }

  async create(key: string, value: Uint8Array): Promise<WriteResult> {
    this.ensureOpen();
    const current = this.index.at(key, this.revision);
    if (current) return { succeeded: false, revision: this.revision, current };
    const revision = this.revision + 1;
    const kv: KeyValue = { key, value: Uint8Array.from(value), createRevision: revision, modRevision: revision };
    this.commit(key, kv.value, revision, { type: 'PUT', kv });
    return { succeeded: true, revision, kv };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<WriteResult> {
    this.ensureOpen();
    const current = this.index.at(key, this.revision);
    if (!current || current.modRevision !== expectedModRevision) return this.guardFailed(current);
    const revision = this.revision + 1;
    const kv: KeyValue = { key, value: Uint8Array.from(value), createRevision: current.createRevision, modRevision: revision };
    this.commit(key, kv.value, revision, { type: 'PUT', kv, prevKv: current });
    return { succeeded: true, revision, kv };
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    this.ensureOpen();
    const current = this.index.at(key, this.revision);
    if (!current || (expectedModRevision !== undefined && current.modRevision !== expectedModRevision)) return this.guardFailed(current);
    const revision = this.revision + 1;
    this.commit(key, undefined, revision, { type: 'DELETE', kv: { ...current, modRevision: revision }, prevKv: current });
    return { succeeded: true, revision, prev: current };
  }

  watch(prefix: string, opts: WatchOptions): AsyncIterable<WatchEvent> {
    return this.watches.watch(prefix, opts);
  }

  requestWatchProgress(): boolean {
    this.watches.requestProgress();
    return true;
  }

  async compact(revision: number): Promise<void> {
    this.ensureOpen();
    if (revision > this.revision) throw new FutureRevisionError(revision, this.revision);
    if (revision <= this.compacted) return;
    this.compacted = revision;
    this.index.compact(revision);
    this.log.compact(revision);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watches.close();
  }

  private commit(key: string, value: Uint8Array | undefined, revision: number, event: WatchEvent): void {
    this.index.append(key, { modRevision: revision, createRevision: value ? event.kv.createRevision : 0, value });
    this.log.append(event);
    this.revision = revision;
    this.watches.publish(() => [event]);
  }

  private guardFailed(current: KeyValue | undefined): { succeeded: false; revision: number; current?: KeyValue } {
    return current ? { succeeded: false, revision: this.revision, current } : { succeeded: false, revision: this.revision };
  }

  private readRevision(requested: number | undefined): number {
    if (!requested) return this.revision;
    if (requested < this.compacted) throw new CompactedError(requested, this.compacted);
    if (requested > this.revision) throw new FutureRevisionError(requested, this.revision);
    return requested;
  }

  private ensureOpen(): void {
    if (this.closed) throw new UnavailableError('storage is closed');
  }
}
