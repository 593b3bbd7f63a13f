/**
 * A map that keeps the `capacity` keys added last: adding one more forgets
 * the oldest, whatever it was. For values derived from recent writes
 * (decoded objects, their watch events), which every reader of a write
 * asks for within moments of it, and which must not live as long as the
 * watch cache keeps the write's bytes.
 */
export class RecentMap<K, V> {
  private readonly map = new Map<K, V>();
  /** The keys in the order they were added, as a ring (evicting walks no deleted Map slots). */
  private readonly ring: (K | undefined)[];
  private next = 0;

  constructor(readonly capacity: number) {
    this.ring = new Array<K | undefined>(capacity);
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  /** Sets the key's value; a key not held yet counts as the newest, and the oldest goes when the map is full. */
  set(key: K, value: V): void {
    if (!this.map.has(key)) {
      const oldest = this.ring[this.next];
      if (oldest !== undefined) this.map.delete(oldest);
      this.ring[this.next] = key;
      this.next = (this.next + 1) % this.capacity;
    }
    this.map.set(key, value);
  }
}
