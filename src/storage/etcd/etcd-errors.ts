import { CompactedError, FutureRevisionError, NoSpaceError, RequestTooLargeError, StorageError, UnavailableError } from '../errors.js';
import { GrpcCode, GrpcError } from './grpc-error.js';

/**
 * Translates a failed etcd call into storage's error types, in this one
 * place. etcd reports both "compacted" and "future revision" as OUT_OF_RANGE;
 * the status message (etcd's fixed rpctypes text) tells them apart.
 */
export function storageError(err: unknown, ctx: { requestedRevision?: number; compactedRevision: number; currentRevision: number }): Error {
  if (!(err instanceof GrpcError)) return err instanceof Error ? err : new StorageError(String(err));
  if (err.code === GrpcCode.OutOfRange && err.details.includes('compacted')) {
    return new CompactedError(ctx.requestedRevision ?? 0, Math.max(ctx.compactedRevision, ctx.requestedRevision ?? 0));
  }
  if (err.code === GrpcCode.OutOfRange && err.details.includes('future')) {
    return new FutureRevisionError(ctx.requestedRevision ?? 0, ctx.currentRevision);
  }
  if (err.details === 'etcdserver: request is too large') return new RequestTooLargeError(0, 0);
  if (err.details === 'etcdserver: mvcc: database space exceeded') return new NoSpaceError(err.details, { cause: err });
  return new UnavailableError(`etcd: ${err.details || `gRPC status ${err.code}`}`, { cause: err });
}

/** Whether a failed call may be sent again without risking a double write (as etcd's clientv3 decides). */
export function retryable(err: unknown, mutating: boolean): boolean {
  if (!(err instanceof GrpcError)) return false;
  if (err.notSent) return true;
  if (err.code !== GrpcCode.Unavailable && err.code !== GrpcCode.DeadlineExceeded) return false;
  // "no leader" is answered before the request is proposed, so nothing was written.
  return !mutating || err.details === 'etcdserver: no leader';
}
