/** A malformed etcd storage specification. */
export class UsageError extends Error {
  override readonly name = 'EtcdUsageError';
}
