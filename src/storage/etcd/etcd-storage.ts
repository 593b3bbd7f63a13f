import { CompactedError, FutureRevisionError, UnavailableError } from '../errors.js';
import type { DeleteResult, GetResult, KeyValue, ListOptions, ListResult, Storage, StorageAlarm, WatchEvent, WatchOptions, WriteResult } from '../storage.js';
import { defragmentCluster, listAlarms, storageAlarms } from './etcd-maintenance.js';
import type { RangeRequest, RangeResponse, RequestOp, TxnRequest, TxnResponse } from './etcd-messages.js';
import {
  decodeHeaderRevision,
  decodeRangeResponse,
  decodeStatusVersion,
  decodeTxnResponse,
  encodeCompactionRequest,
  encodeRangeRequest,
  encodeTxnRequest,
  encodeWatchProgress,
} from './etcd-messages.js';
import type { GrpcStream } from './grpc-stream.js';
import { retryable, storageError } from './etcd-errors.js';
import { watchEtcd } from './etcd-watch.js';
import { GrpcConnection, type TlsMaterial } from './grpc-connection.js';
import { keyAfter, prefixRangeEnd } from './key-range.js';

export interface EtcdStorageOptions {
  /** Client URLs of the members, e.g. ["http://127.0.0.1:2379"]. */
  endpoints: string[];
  tls?: TlsMaterial;
  /** Deadline of one unary call. Default 10,000 ms. */
  callTimeoutMs?: number;
  /** Tries of a call that failed before reaching etcd (or of a read). Default 5. */
  attempts?: number;
  observe?: (op: string, seconds: number) => void;
}

const KV = '/etcdserverpb.KV/';
const MAINTENANCE_STATUS = '/etcdserverpb.Maintenance/Status';

/**
 * Whether an etcd version sends requested progress notifications only after
 * every event up to their revision. Older releases can send one ahead of an
 * event of the same revision (etcd-io/etcd#15220): a cache trusting it would
 * skip that event. The thresholds are the ones upstream's consistent reads
 * from cache require (v3.4.31+, v3.5.13+).
 */
export function progressNotifyReliable(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}

/**
 * Storage over etcd's v3 gRPC API. Keys are stored as given, so
 * `etcdctl get --prefix /registry/pods` shows them. Guarded writes are
 * single transactions (compare create_revision == 0 for creates, mod_revision
 * for updates and deletes) whose failure branch reads the current value, so a
 * lost race costs one round trip.
 */
export class EtcdStorage implements Storage {
  private readonly connection: GrpcConnection;
  private readonly closing = new AbortController();
  /** The newest header revision seen: every write issued later gets a higher one. */
  private seenRevision = 0;
  /** etcd does not report its compacted revision; this is the newest one we compacted or were told of. */
  private compacted = 0;
  /** Watch streams whose owner wants progress notifications. */
  private readonly progressStreams = new Set<GrpcStream>();
  /** Whether the server's progress notifications can be trusted (asked once, see progressNotifyReliable). */
  private progressReliable: Promise<boolean> | undefined;
  private progressKnownReliable = false;

  constructor(private readonly opts: EtcdStorageOptions) {
    this.connection = new GrpcConnection({ endpoints: opts.endpoints, ...(opts.tls ? { tls: opts.tls } : {}) });
  }

  async currentRevision(): Promise<number> {
    const response = await this.range('revision', { key: '\0', countOnly: true });
    return response.revision;
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  async get(key: string): Promise<GetResult> {
    const response = await this.range('get', { key });
    const kv = response.kvs[0];
    return kv ? { kv, revision: response.revision } : { revision: response.revision };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const from = opts.startAfter !== undefined && Buffer.compare(Buffer.from(opts.startAfter), Buffer.from(prefix)) >= 0 ? keyAfter(opts.startAfter) : prefix;
    const response = await this.range('list', {
      key: from,
      rangeEnd: prefixRangeEnd(prefix),
      ...(opts.limit ? { limit: opts.limit } : {}),
      ...(opts.revision ? { revision: opts.revision } : {}),
    });
    return {
      kvs: response.kvs,
      revision: opts.revision || response.revision,
      more: response.more,
      remaining: Math.max(0, response.count - response.kvs.length),
    };
  }

  async count(prefix: string): Promise<number> {
    return (await this.range('count', { key: prefix, rangeEnd: prefixRangeEnd(prefix), countOnly: true })).count;
  }

  async create(key: string, value: Uint8Array): Promise<WriteResult> {
    const txn = await this.txn('create', {
      compare: [{ key, target: 'create', value: 0 }],
      success: [{ put: { key, value } }],
      failure: [{ range: { key } }],
    });
    if (txn.succeeded) return { succeeded: true, revision: txn.revision, kv: { key, value, createRevision: txn.revision, modRevision: txn.revision } };
    return this.failedWrite(txn);
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<WriteResult> {
    const txn = await this.txn('update', {
      compare: [{ key, target: 'mod', value: expectedModRevision }],
      success: [{ put: { key, value, prevKv: true } }],
      failure: [{ range: { key } }],
    });
    if (!txn.succeeded) return this.failedWrite(txn);
    const put = txn.responses[0];
    const createRevision = put && 'put' in put && put.put.prevKv ? put.put.prevKv.createRevision : txn.revision;
    return { succeeded: true, revision: txn.revision, kv: { key, value, createRevision, modRevision: txn.revision } };
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const remove: RequestOp = { deleteRange: { key, prevKv: true } };
    const txn = await this.txn('delete', expectedModRevision === undefined
      ? { compare: [], success: [remove], failure: [] }
      : { compare: [{ key, target: 'mod', value: expectedModRevision }], success: [remove], failure: [{ range: { key } }] });
    if (!txn.succeeded) return this.failedWrite(txn);
    const op = txn.responses[0];
    const prev = op && 'deleteRange' in op ? op.deleteRange.prevKvs[0] : undefined;
    // Nothing was there to delete: etcd still bumps nothing, and the caller gets "missing".
    if (!prev) return { succeeded: false, revision: txn.revision };
    return { succeeded: true, revision: txn.revision, prev };
  }

  watch(prefix: string, opts: WatchOptions): AsyncIterable<WatchEvent> {
    // "From now" is pinned at call time: any write issued after this call gets a revision above one already seen.
    const startRevision = opts.startRevision > 0 ? opts.startRevision : this.seenRevision > 0 ? this.seenRevision + 1 : 0;
    const signal = AbortSignal.any([opts.signal, this.closing.signal]);
    const watchOptions = {
      prefix,
      startRevision,
      signal,
      onRevision: (revision: number) => this.sawRevision(revision),
      onCompacted: (revision: number) => (this.compacted = Math.max(this.compacted, revision)),
    };
    if (!opts.onProgress) return { [Symbol.asyncIterator]: () => watchEtcd(this.connection, watchOptions) };
    const onProgress = opts.onProgress;
    const reliable = () => this.watchProgressReliable();
    const connection = this.connection;
    const streams = this.progressStreams;
    return {
      async *[Symbol.asyncIterator]() {
        // Progress this server cannot be trusted on is never reported: the owner relies on events alone.
        yield* (await reliable())
          ? watchEtcd(connection, { ...watchOptions, onProgress, streams, progressIntervalMs: opts.progressIntervalMs })
          : watchEtcd(connection, watchOptions);
      },
    };
  }

  requestWatchProgress(): boolean {
    if (!this.progressKnownReliable) return false;
    // etcd answers on each stream once its watchers are synced.
    for (const stream of this.progressStreams) stream.send(encodeWatchProgress());
    return true;
  }

  /** Asks the server for its version once; an older etcd's progress notifications are never used. */
  watchProgressReliable(): Promise<boolean> {
    this.progressReliable ??= this.connection.unary(MAINTENANCE_STATUS, new Uint8Array(0), this.opts.callTimeoutMs ?? 10_000).then(
      (response) => (this.progressKnownReliable = progressNotifyReliable(decodeStatusVersion(response))),
      () => {
        // Not known yet (no member answered): ask again next time.
        this.progressReliable = undefined;
        return false;
      },
    );
    return this.progressReliable;
  }

  async compact(revision: number): Promise<void> {
    const started = performance.now();
    const current = await this.currentRevision();
    if (revision > current) throw new FutureRevisionError(revision, current);
    if (revision <= this.compacted) return;
    try {
      const response = await this.call('compact', 'Compact', encodeCompactionRequest(revision), true);
      this.sawRevision(decodeHeaderRevision(response));
    } catch (err) {
      const mapped = storageError(err, this.context(revision));
      // Another API server compacted past this revision already: the goal is reached.
      if (!(mapped instanceof CompactedError)) throw mapped;
    }
    this.compacted = Math.max(this.compacted, revision);
    this.opts.observe?.('compact', (performance.now() - started) / 1000);
  }

  /** etcd's raised alarms (NOSPACE past --quota-backend-bytes, CORRUPT): while any is, the API server is not ready. */
  async alarms(): Promise<StorageAlarm[]> {
    try {
      return storageAlarms(await listAlarms(this.connection, this.opts.callTimeoutMs ?? 10_000));
    } catch (err) {
      throw storageError(err, this.context());
    }
  }

  /**
   * Defragments every member, then disarms NOSPACE (the operator's steps
   * after compacting; `skiff storage defrag` runs them). The API server does
   * not call this by itself on etcd: a defragmenting member stops serving,
   * and the members may be shared with other API servers.
   */
  async defragment(): Promise<void> {
    const started = performance.now();
    try {
      await defragmentCluster(this.opts.endpoints, this.opts.tls);
    } catch (err) {
      throw storageError(err, this.context());
    }
    this.opts.observe?.('defragment', (performance.now() - started) / 1000);
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.connection.close();
  }

  private async range(op: string, request: RangeRequest): Promise<RangeResponse> {
    const started = performance.now();
    try {
      const response = decodeRangeResponse(await this.call(op, 'Range', encodeRangeRequest(request), false, request.revision));
      this.sawRevision(response.revision);
      return response;
    } finally {
      this.opts.observe?.(op, (performance.now() - started) / 1000);
    }
  }

  private async txn(op: string, request: TxnRequest): Promise<TxnResponse> {
    const started = performance.now();
    try {
      const response = decodeTxnResponse(await this.call(op, 'Txn', encodeTxnRequest(request), true));
      this.sawRevision(response.revision);
      return response;
    } finally {
      this.opts.observe?.(op, (performance.now() - started) / 1000);
    }
  }

  /** A failed guard: the failure branch read the current value (absent when the key is missing). */
  private failedWrite(txn: TxnResponse): { succeeded: false; revision: number; current?: KeyValue } {
    const read = txn.responses[0];
    const current = read && 'range' in read ? read.range.kvs[0] : undefined;
    return current ? { succeeded: false, revision: txn.revision, current } : { succeeded: false, revision: txn.revision };
  }

  private async call(_op: string, method: string, request: Uint8Array, mutating: boolean, requestedRevision?: number): Promise<Uint8Array> {
    const attempts = this.opts.attempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      if (this.closing.signal.aborted) throw new UnavailableError('etcd storage is closed');
      try {
        return await this.connection.unary(KV + method, request, this.opts.callTimeoutMs ?? 10_000);
      } catch (err) {
        if (attempt >= attempts || !retryable(err, mutating)) throw storageError(err, this.context(requestedRevision));
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 50));
      }
    }
  }

  private context(requestedRevision?: number) {
    return {
      ...(requestedRevision !== undefined ? { requestedRevision } : {}),
      compactedRevision: this.compacted,
      currentRevision: this.seenRevision,
    };
  }

  private sawRevision(revision: number): void {
    if (revision > this.seenRevision) this.seenRevision = revision;
  }
}
