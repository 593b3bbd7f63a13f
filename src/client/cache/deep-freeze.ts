/**
 * Freezes an object graph so that code mutating a cached object fails loudly
 * (in strict mode, a TypeError) instead of corrupting the shared cache.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}

/** Freezing costs a walk per object, so production skips it. */
export const FREEZE_CACHED_OBJECTS = process.env.NODE_ENV !== 'production';
