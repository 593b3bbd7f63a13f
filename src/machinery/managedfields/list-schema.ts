/**
 * The only schema facts field management needs: how each list is identified
 * (atomic, a set of scalars, or a map keyed by some of its items' fields) and
 * which maps/structs are atomic. Paths are field names from the object root;
 * list items add no segment, map keys do (`metadata.labels.app`).
 */
import type { JsonValue } from '../patch/json-value.js';

export interface ListType {
  type: 'atomic' | 'set' | 'map';
  /** For `map`: the item fields that identify an item (x-kubernetes-list-map-keys). */
  keys?: readonly string[];
  /** Values for key fields an item may omit (upstream reads them from the schema's defaults). */
  keyDefaults?: Readonly<Record<string, JsonValue>>;
}

export interface ListSchema {
  listTypeAt(path: readonly string[]): ListType;
  /** Maps and structs marked `x-kubernetes-map-type: atomic` are owned and replaced whole. */
  mapTypeAt?(path: readonly string[]): 'atomic' | 'granular';
}

const ATOMIC: ListType = { type: 'atomic' };

/** What upstream deduces for objects without a schema: every list is atomic, every map granular. */
export const deducedSchema: ListSchema = {
  listTypeAt: () => ATOMIC,
};

export function isAtomicMap(schema: ListSchema, path: readonly string[]): boolean {
  return schema.mapTypeAt?.(path) === 'atomic';
}
