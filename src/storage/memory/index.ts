export { MemoryStorage, type MemoryStorageOptions } from './memory-storage.js';
