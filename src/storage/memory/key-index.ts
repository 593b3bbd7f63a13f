import { compareKeys } from '../key-range.js';
import type { KeyValue } from '../storage.js';

/** One write to a key: its value, or a tombstone (value undefined) for a delete. */
export interface Version {
  modRevision: number;
  createRevision: number;
  value: Uint8Array | undefined;
}

/**
 * Every key's history, with the keys kept sorted by their UTF-8 bytes (the
 * order etcd and SQLite list in). A key stays in the index while any of its
 * versions is still readable, so reads at older revisions see it.
 */
export class KeyIndex {
  private readonly sorted: string[] = [];
  private readonly histories = new Map<string, Version[]>();

  /** The live kv of `key` at `revision`, if any. */
  at(key: string, revision: number): KeyValue | undefined {
    const versions = this.histories.get(key);
    if (!versions) return undefined;
    for (let i = versions.length - 1; i >= 0; i--) {
      const v = versions[i]!;
      if (v.modRevision > revision) continue;
      return v.value ? { key, value: v.value, createRevision: v.createRevision, modRevision: v.modRevision } : undefined;
    }
    return undefined;
  }

  /** The latest version of `key` (possibly a tombstone). */
  latest(key: string): Version | undefined {
    return this.histories.get(key)?.at(-1);
  }

  append(key: string, version: Version): void {
    let versions = this.histories.get(key);
    if (!versions) {
      versions = [];
      this.histories.set(key, versions);
      this.sorted.splice(this.search(key), 0, key);
    }
    versions.push(version);
  }

  /** Keys under `prefix` from `from` (inclusive or not), in order. */
  *keys(prefix: string, from: string, inclusive: boolean): Generator<string> {
    let i = this.search(from);
    if (!inclusive && this.sorted[i] === from) i++;
    for (; i < this.sorted.length; i++) {
      const key = this.sorted[i]!;
      if (!key.startsWith(prefix)) return;
      yield key;
    }
  }

  /** Drops versions no read at or above `revision` can see (tombstones at exactly `revision` stay for watches). */
  compact(revision: number): void {
    const emptied = new Set<string>();
    for (const [key, versions] of this.histories) {
      let keep = versions.length - 1;
      while (keep > 0 && versions[keep]!.modRevision > revision) keep--;
      if (versions[keep]!.modRevision > revision) continue;
      const head = versions[keep]!;
      const dropHead = head.value === undefined && head.modRevision < revision;
      versions.splice(0, dropHead ? keep + 1 : keep);
      if (versions.length === 0) emptied.add(key);
    }
    if (emptied.size === 0) return;
    for (const key of emptied) this.histories.delete(key);
    const live = this.sorted.filter((key) => !emptied.has(key));
    this.sorted.splice(0, this.sorted.length, ...live);
  }

  /** The first index whose key is >= `key`. */
  private search(key: string): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.sorted[mid]!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
