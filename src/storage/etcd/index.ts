export { EtcdStorage, type EtcdStorageOptions } from './etcd-storage.js';
export { parseEtcdEndpoints } from './etcd-endpoints.js';
export { UsageError as EtcdUsageError } from './usage-error.js';
export type { TlsMaterial } from './grpc-connection.js';
export { memberSizes } from './etcd-maintenance.js';
