/**
 * Freezes an object graph so that code mutating a cached object fails loudly
 * (in strict mode, a TypeError) instead of corrupting the shared cache.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) freezeTree(value);
  return value;
}

/**
 * Every informer event pays for this walk, so it allocates nothing (no
 * Object.values arrays) and skips primitives without a call. An object is
 * frozen before its children, so a cycle ends the walk instead of looping.
 */
function freezeTree(o: object): void {
  Object.freeze(o);
  if (Array.isArray(o)) {
    for (let i = 0; i < o.length; i++) {
      const v: unknown = o[i];
      if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) freezeTree(v);
    }
    return;
  }
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue;
    const v: unknown = (o as Record<string, unknown>)[k];
    if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) freezeTree(v);
  }
}

/** Freezing costs a walk per object, so production skips it. */
export const FREEZE_CACHED_OBJECTS = process.env.NODE_ENV !== 'production';
