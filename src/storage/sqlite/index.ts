export { SqliteStorage } from './sqlite-storage.js';
export type { ObserveFunc, SqliteStorageOptions, SqliteStorageStats } from './sqlite-storage.js';
