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
