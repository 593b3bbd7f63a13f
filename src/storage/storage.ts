/**
 * Storage is a key-value store with etcd v3 semantics. Every write bumps one
 * global, monotonically increasing revision. Guarded writes that fail return
 * the current value as a value (a failed compare-and-swap is an expected
 * outcome, not an exception). Only the API server uses this interface.
 */
export interface KeyValue {
  key: string;
  value: Uint8Array;
  /** Revision at which the key was (last) created. */
  createRevision: number;
  /** Revision of the last write to the key. */
  modRevision: number;
}

/** Result of a guarded write: the new kv, or the current one when the guard failed. */
export type WriteResult =
  | { succeeded: true; revision: number; kv: KeyValue }
  | { succeeded: false; revision: number; current?: KeyValue };

/** Result of a guarded delete: the deleted kv, or the current one when the guard failed. */
export type DeleteResult =
  | { succeeded: true; revision: number; prev: KeyValue }
  | { succeeded: false; revision: number; current?: KeyValue };

export interface ListOptions {
  /** Read at this revision (0 or unset: the current one). Older than the compacted revision throws CompactedError. */
  revision?: number;
  /** At most this many items; `more` tells whether there are others. */
  limit?: number;
  /** Start after this key (exclusive); used for continue tokens. */
  startAfter?: string;
}

export interface ListResult {
  kvs: KeyValue[];
  /** The revision the list was read at. */
  revision: number;
  /** True when the prefix has more keys after the last returned one. */
  more: boolean;
  /** Number of keys in the prefix after the returned ones (for remainingItemCount), when known. */
  remaining?: number;
}

export interface GetResult {
  kv?: KeyValue;
  revision: number;
}

export type WatchEventType = 'PUT' | 'DELETE';

export interface WatchEvent {
  type: WatchEventType;
  /** For DELETE: key, the deletion revision as modRevision, and the last value. */
  kv: KeyValue;
  /** The value before this event; absent for creates. */
  prevKv?: KeyValue;
}

export interface WatchOptions {
  /** Deliver every event with revision >= startRevision (etcd semantics). 0: from now on. */
  startRevision: number;
  signal: AbortSignal;
  /**
   * Optional: told a revision R once every event under the prefix up to R has
   * been delivered by this watch (etcd progress notifications). A watch cache
   * uses it to prove it is fresh while only other keys change. Backends
   * without such notifications never call it.
   */
  onProgress?: (revision: number) => void;
  /**
   * Optional, with onProgress: report progress about this often even while no
   * event under the prefix arrives (etcd's progress notify), so a quiet
   * watcher learns how far the store has moved.
   */
  progressIntervalMs?: number;
}

export interface Storage {
  /** The current revision of the store. */
  currentRevision(): Promise<number>;
  /** The revision up to which history has been compacted (0: none). */
  compactedRevision(): Promise<number>;
  get(key: string): Promise<GetResult>;
  /**
   * Optional: the key's value as a cache in this process holds it (the watch
   * cache), without a read; it may lag the store, so it is only a guess to
   * build a guarded write on (upstream's cachedExistingObject). Undefined
   * when the cache holds no value for the key. With `start`, a resource whose
   * cache is not running yet gets one (as upstream's admission plugins run
   * informers of what they look up), so later calls find it.
   */
  getCached?(key: string, opts?: { start?: boolean }): KeyValue | undefined;
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Number of keys under the prefix at the current revision. */
  count(prefix: string): Promise<number>;
  /** Creates the key only if absent; otherwise fails with the current kv. */
  create(key: string, value: Uint8Array): Promise<WriteResult>;
  /** Writes the key only if its modRevision equals `expectedModRevision`. */
  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<WriteResult>;
  /** Deletes the key, guarded by modRevision when one is given. */
  delete(key: string, expectedModRevision?: number): Promise<DeleteResult>;
  /**
   * Events for keys under the prefix, in revision order. Throws CompactedError
   * (from the iterator) when startRevision is already compacted, and
   * WatchClosedError when the watcher falls too far behind. Ends when the signal aborts.
   */
  watch(prefix: string, opts: WatchOptions): AsyncIterable<WatchEvent>;
  /**
   * Optional: asks every open watch with `onProgress` to report its progress
   * soon. Returns false when the backend cannot report progress it can be
   * trusted on (then nothing is asked and callers read the storage instead).
   */
  requestWatchProgress?(): boolean;
  /** Optional: whether progress reports can be trusted (absent: they can). */
  watchProgressReliable?(): Promise<boolean>;
  /** Discards history older than `revision`, keeping the latest value of every live key. */
  compact(revision: number): Promise<void>;
  /** Optional: the store's raised alarms (etcd's NOSPACE, CORRUPT); while any is raised the API server is not ready. */
  alarms?(): Promise<StorageAlarm[]>;
  /** Optional: gives free space back to the file system (etcd's defragment); a NOSPACE alarm clears once under the quota. */
  defragment?(): Promise<void>;
  close(): Promise<void>;
}

/** A condition that stops the store from taking writes (etcd's alarm types). */
export interface StorageAlarm {
  /** NOSPACE: quota or disk exhausted, only deletes are taken; CORRUPT: the data can no longer be trusted, no writes are taken. */
  type: 'NOSPACE' | 'CORRUPT';
  message: string;
}
