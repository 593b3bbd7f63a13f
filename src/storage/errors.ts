/** Storage's own error types; the API server maps them to HTTP in one place. */
export class StorageError extends Error {
  override readonly name: string = 'StorageError';
}

/** The requested revision is older than the compacted revision. */
export class CompactedError extends StorageError {
  override readonly name = 'CompactedError';
  constructor(
    readonly requestedRevision: number,
    readonly compactedRevision: number,
  ) {
    super(`required revision ${requestedRevision} has been compacted (compacted revision ${compactedRevision})`);
  }
}

/** The requested revision is newer than the store's current revision. */
export class FutureRevisionError extends StorageError {
  override readonly name = 'FutureRevisionError';
  constructor(
    readonly requestedRevision: number,
    readonly currentRevision: number,
  ) {
    super(`required revision ${requestedRevision} is a future revision (current ${currentRevision})`);
  }
}

/** A watcher was closed by the store, e.g. because it could not keep up. */
export class WatchClosedError extends StorageError {
  override readonly name = 'WatchClosedError';
}

/** The backend cannot be reached or failed. */
export class UnavailableError extends StorageError {
  override readonly name = 'UnavailableError';
}

/** A value larger than the store accepts (etcd's --max-request-bytes, 1.5 MiB). */
export class RequestTooLargeError extends StorageError {
  override readonly name = 'RequestTooLargeError';
  constructor(readonly size: number, readonly limit: number) {
    // etcd's own text (rpctypes.ErrRequestTooLarge), which upstream passes through
    super('etcdserver: request is too large');
  }
}

/**
 * The store has no space for more data: its size quota is exhausted (etcd's
 * NOSPACE alarm) or the disk is full. Writes that add data are refused;
 * reads and deletes go on.
 */
export class NoSpaceError extends StorageError {
  override readonly name = 'NoSpaceError';
  constructor(message = 'etcdserver: mvcc: database space exceeded', options?: ErrorOptions) {
    super(message, options);
  }
}

/** The store refuses to open: its file is corrupt, not a skiff database, or gone. Never start empty over it. */
export class IntegrityError extends StorageError {
  override readonly name = 'IntegrityError';
}
