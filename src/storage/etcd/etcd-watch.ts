import { CompactedError, WatchClosedError } from '../errors.js';
import type { KeyValue, WatchEvent } from '../storage.js';
import type { EtcdEvent } from './etcd-messages.js';
import { decodeWatchResponse, encodeWatchCreate, encodeWatchProgress } from './etcd-messages.js';
import type { GrpcConnection } from './grpc-connection.js';
import type { GrpcStream } from './grpc-stream.js';
import { GrpcCode, GrpcError } from './grpc-error.js';
import { prefixRangeEnd } from './key-range.js';

export interface EtcdWatchOptions {
  prefix: string;
  /** First revision to deliver; 0 lets etcd pick "now" (only before any response was seen). */
  startRevision: number;
  signal: AbortSignal;
  /** Told of every response's header revision and of compactions etcd reports. */
  onRevision(revision: number): void;
  onCompacted(revision: number): void;
  /** Progress notifications (see WatchOptions.onProgress); the live stream is registered in `streams` meanwhile. */
  onProgress?: (revision: number) => void;
  streams?: Set<GrpcStream>;
  /** With onProgress: ask etcd for progress this often on this stream. */
  progressIntervalMs?: number;
  /** Longest pause between reconnect attempts. Default 2,000 ms. */
  maxBackoffMs?: number;
}

const WATCH_PATH = '/etcdserverpb.Watch/Watch';

/**
 * Events under a prefix from etcd, one gRPC Watch stream per watcher. When
 * the stream breaks (a member died, the network blipped) it reconnects,
 * possibly to another member, resuming from the revision after the last
 * event delivered, so the consumer sees neither a gap nor a duplicate. A
 * compacted start revision ends it with CompactedError.
 */
export async function* watchEtcd(connection: GrpcConnection, opts: EtcdWatchOptions): AsyncGenerator<WatchEvent> {
  let next = opts.startRevision;
  let failures = 0;
  while (!opts.signal.aborted) {
    let call;
    try {
      call = connection.call(WATCH_PATH);
    } catch {
      // The connection is closed or could not open a stream: try again shortly.
      await backoff(++failures, opts);
      continue;
    }
    const cancel = () => call.cancel();
    let progressTimer: NodeJS.Timeout | undefined;
    opts.signal.addEventListener('abort', cancel, { once: true });
    try {
      call.send(encodeWatchCreate({ key: opts.prefix, rangeEnd: prefixRangeEnd(opts.prefix), startRevision: next, prevKv: true }));
      for await (const message of call) {
        const response = decodeWatchResponse(message);
        if (response.revision > 0) opts.onRevision(response.revision);
        if (response.compactRevision > 0) {
          opts.onCompacted(response.compactRevision);
          throw new CompactedError(next, response.compactRevision);
        }
        if (response.canceled) throw new WatchClosedError(`etcd canceled the watch on ${JSON.stringify(opts.prefix)}: ${response.cancelReason}`);
        if (response.created) {
          failures = 0;
          // "Now" is pinned at creation, so a reconnect resumes after it rather than at a later "now".
          if (next === 0) next = response.revision + 1;
          if (opts.onProgress) opts.streams?.add(call);
          if (opts.onProgress && opts.progressIntervalMs) {
            progressTimer = setInterval(() => {
              try {
                call.send(encodeWatchProgress());
              } catch {
                // the stream is closing; its reconnect starts a new timer
              }
            }, opts.progressIntervalMs);
            progressTimer.unref();
          }
          continue;
        }
        // An empty response is a progress notification: every event up to its revision was sent.
        // The generator only reads it after the consumer took every earlier event, so reporting it now is in order.
        if (response.events.length === 0) {
          opts.onProgress?.(response.revision);
          continue;
        }
        for (const event of response.events) {
          next = event.kv.modRevision + 1;
          yield toWatchEvent(event);
        }
      }
      // The server ended the stream cleanly (it is shutting down): reconnect.
    } catch (err) {
      if (opts.signal.aborted) return;
      if (!(err instanceof GrpcError) || err.code === GrpcCode.Cancelled) throw err;
      connection.failover();
      await backoff(++failures, opts);
    } finally {
      opts.signal.removeEventListener('abort', cancel);
      clearInterval(progressTimer);
      opts.streams?.delete(call);
      call.cancel();
    }
  }
}

function toWatchEvent(event: EtcdEvent): WatchEvent {
  const prevKv: KeyValue | undefined = event.prevKv;
  if (event.type === 'PUT') return prevKv ? { type: 'PUT', kv: event.kv, prevKv } : { type: 'PUT', kv: event.kv };
  // etcd's delete event carries only the key and the deletion revision; the last value comes from prev_kv.
  const kv: KeyValue = {
    key: event.kv.key,
    value: prevKv?.value ?? new Uint8Array(0),
    createRevision: prevKv?.createRevision ?? 0,
    modRevision: event.kv.modRevision,
  };
  return prevKv ? { type: 'DELETE', kv, prevKv } : { type: 'DELETE', kv };
}

async function backoff(failures: number, opts: EtcdWatchOptions): Promise<void> {
  const base = Math.min(opts.maxBackoffMs ?? 2000, 50 * 2 ** Math.min(failures, 10));
  const delay = base / 2 + Math.random() * (base / 2);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, delay);
    function done() {
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', done);
      resolve();
    }
    opts.signal.addEventListener('abort', done, { once: true });
  });
}
