/**
 * Keys in the order they were last touched, least recent first, with O(1)
 * amortized touch, delete and oldest. A touch appends; the key's earlier
 * place goes stale and is skipped (and compacted away) later. Unlike moving
 * a key to the end of a Map (delete + set), this leaves no deleted slots for
 * every later walk from the front to step over.
 */
export class RecencyQueue<K> {
  private keys: K[] = [];
  private seqs: number[] = [];
  private head = 0;
  /** Each live key's newest place (its sequence number). */
  private readonly newest = new Map<K, number>();
  private seq = 0;

  /** Makes `key` the most recently touched. */
  touch(key: K): void {
    const last = this.keys.length - 1;
    if (last >= this.head && this.keys[last] === key && this.newest.get(key) === this.seqs[last]) return;
    const s = ++this.seq;
    this.keys.push(key);
    this.seqs.push(s);
    this.newest.set(key, s);
    this.compact();
  }

  /** The least recently touched key, or undefined when empty. */
  oldest(): K | undefined {
    while (this.head < this.keys.length) {
      const key = this.keys[this.head];
      if (this.newest.get(key) === this.seqs[this.head]) return key;
      this.head++;
    }
    return undefined;
  }

  delete(key: K): void {
    this.newest.delete(key);
  }

  get size(): number {
    return this.newest.size;
  }

  clear(): void {
    this.keys = [];
    this.seqs = [];
    this.head = 0;
    this.newest.clear();
  }

  /** Drops stale places once they outnumber the live keys (amortized O(1) per touch). */
  private compact(): void {
    const held = this.keys.length - this.head;
    if (held <= 2 * this.newest.size + 1024) return;
    const keys: K[] = [];
    const seqs: number[] = [];
    for (let i = this.head; i < this.keys.length; i++) {
      if (this.newest.get(this.keys[i]) !== this.seqs[i]) continue;
      keys.push(this.keys[i]);
      seqs.push(this.seqs[i]);
    }
    this.keys = keys;
    this.seqs = seqs;
    this.head = 0;
  }
}
