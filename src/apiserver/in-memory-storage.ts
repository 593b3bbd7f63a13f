import { Cacher } from '../storage/cacher/cacher.js';
import { MemoryStorage } from '../storage/memory/memory-storage.js';
import type { Storage } from '../storage/storage.js';

export type { Storage };
export { MemoryStorage };

/**
 * The storage an in-process API server runs on in tests: in memory, behind
 * the watch cache when asked. Built here so that only the API server's side
 * of the codebase constructs storage (`skiff/testing` asks for it).
 */
export function inMemoryStorage(options: { watchCache?: boolean } = {}): Storage {
  const memory = new MemoryStorage();
  return options.watchCache ? new Cacher(memory) : memory;
}
