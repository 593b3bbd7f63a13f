import type { KeyValue, ListResult, WatchEvent } from '../storage.js';

/** The objects a watch cache holds now: keys in order, and their values. */
export interface CurrentObjects {
  keys: readonly string[];
  get(key: string): KeyValue | undefined;
}

/**
 * A page of the keys under `prefix` as they were at `revision`, from the
 * current objects and the events after that revision (upstream's list from a
 * cache snapshot): a key an event touched takes the value the first such
 * event replaced (none if it created the key). Undefined when an event does
 * not tell that value (a delete without its previous value): then only the
 * storage can answer.
 */
export function listAtRevision(current: CurrentObjects, eventsAfter: readonly WatchEvent[], prefix: string, revision: number, opts: { limit?: number; startAfter?: string }): ListResult | undefined {
  const past = new Map<string, KeyValue | null>();
  for (const event of eventsAfter) {
    const key = event.kv.key;
    if (!key.startsWith(prefix) || past.has(key)) continue;
    if (event.type === 'DELETE' && !event.prevKv) return undefined;
    past.set(key, event.prevKv ?? null);
  }
  const keys = current.keys;
  const touched = [...past.keys()].sort();
  const from = opts.startAfter !== undefined && opts.startAfter >= prefix ? opts.startAfter : undefined;
  let i = lowerBound(keys, from ?? prefix);
  if (from !== undefined && keys[i] === from) i++;
  let j = lowerBound(touched, from ?? prefix);
  if (from !== undefined && touched[j] === from) j++;
  const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
  const kvs: KeyValue[] = [];
  for (;;) {
    const a = i < keys.length && keys[i]!.startsWith(prefix) ? keys[i]! : undefined;
    const b = j < touched.length ? touched[j]! : undefined;
    if (a === undefined && b === undefined) break;
    if (kvs.length >= limit) {
      // a page is full: the keys after it are counted, not walked one by one (a page costs its size, not the prefix's)
      const remaining = countAfter(keys, i, prefix, touched, j, past, current);
      return { kvs, revision, more: remaining > 0, remaining };
    }
    let kv: KeyValue | null | undefined;
    if (b === undefined || (a !== undefined && a < b)) {
      i++;
      // a key an event touched is answered from the touched side
      if (past.has(a!)) continue;
      kv = current.get(a!);
    } else {
      if (a === b) i++;
      j++;
      kv = past.get(b);
    }
    if (kv) kvs.push(kv);
  }
  return { kvs, revision, more: false, remaining: 0 };
}

/**
 * The keys under `prefix` at the revision from current position `i` and
 * touched position `j` on: the current ones no event touched, and the
 * touched ones that existed then.
 */
function countAfter(keys: readonly string[], i: number, prefix: string, touched: readonly string[], j: number, past: ReadonlyMap<string, KeyValue | null>, current: CurrentObjects): number {
  // the first key past the prefix's range (keys from i on are >= prefix)
  let lo = i;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]!.startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  let count = lo - i;
  for (let k = j; k < touched.length; k++) {
    const key = touched[k]!;
    // a touched key still current was counted above (it sorts after every key already walked), but is answered by its past value
    if (current.get(key) !== undefined) count--;
    if (past.get(key)) count++;
  }
  return count;
}

export function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
