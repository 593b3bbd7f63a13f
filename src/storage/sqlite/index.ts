export { DEFAULT_MAX_OBJECT_BYTES, SqliteStorage } from './sqlite-storage.js';
export type { ObserveFunc, SqliteStorageOptions, SqliteStorageStats } from './sqlite-storage.js';
export { DEFAULT_QUOTA_BYTES } from './space-guard.js';
