import { ApiError, expired, internalError, serviceUnavailable } from '../../machinery/api-error.js';
import { CompactedError, FutureRevisionError, NoSpaceError, RequestTooLargeError, StorageError, UnavailableError, WatchClosedError } from '../../storage/errors.js';

/** What the request was doing when storage failed: the Status wording depends on it. */
export type StorageOperation =
  | { verb: 'list'; continuing: boolean }
  | { verb: 'watch'; resourceVersion: number }
  | { verb: 'other' };

const LIST_EXPIRED = 'The resourceVersion for the provided list is too old.';
const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/**
 * The one place storage errors become API Status errors (upstream:
 * storage.InterpretListError / InterpretWatchError and the etcd health
 * mapping):
 * - compacted → 410 Expired, worded as upstream for lists, continue tokens and watches;
 * - a revision the store has not reached → 504 Timeout (ResourceVersionTooLarge, retry after 1 s);
 * - unavailable or closed storage → 503 ServiceUnavailable (retry after 1 s);
 * - a value over the store's limit, or no space left (quota or disk) → 500
 *   with etcd's own text and no reason, exactly what upstream answers
 *   (`etcdserver: request is too large`, `etcdserver: mvcc: database space exceeded`);
 * - anything else → 500.
 * A watch closed for being slow is no error at all: the watch handler ends the
 * stream (see `isWatchEnd`), and the client resumes or relists.
 */
export function storageErrorToApiError(err: StorageError, op: StorageOperation): ApiError {
  if (err instanceof CompactedError) {
    if (op.verb === 'list') return expired(op.continuing ? CONTINUE_EXPIRED : LIST_EXPIRED);
    if (op.verb === 'watch') return expired(`too old resource version: ${op.resourceVersion} (${err.compactedRevision})`);
    return expired(`too old resource version: ${err.requestedRevision} (${err.compactedRevision})`);
  }
  if (err instanceof FutureRevisionError) {
    return new ApiError(504, 'Timeout', `Too large resource version: ${err.requestedRevision}, current: ${err.currentRevision}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    });
  }
  if (err instanceof RequestTooLargeError || err instanceof NoSpaceError) return new ApiError(500, 'Unknown', err.message);
  if (err instanceof UnavailableError || err instanceof WatchClosedError) {
    const unavailable = serviceUnavailable(`storage is unavailable: ${err.message}`);
    return new ApiError(503, unavailable.reason, unavailable.message, { retryAfterSeconds: 1 });
  }
  return internalError(err.message);
}

/** Maps storage errors (passing everything else through) for a `.catch`. */
export function rethrowStorageError(op: StorageOperation): (err: unknown) => never {
  return (err: unknown) => {
    throw err instanceof StorageError ? storageErrorToApiError(err, op) : err;
  };
}

/** Storage closed a watch (it fell behind, or the watch cache restarts): the stream just ends. */
export function isWatchEnd(err: unknown): boolean {
  return err instanceof WatchClosedError;
}
