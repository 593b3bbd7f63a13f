/**
 * The per-attempt scratchpad: PreFilter/PreScore plugins leave data here for
 * their own Filter/Score calls. A fresh one is made for every attempt, so
 * nothing leaks between pods.
 */
export class CycleState {
  private readonly data = new Map<string, unknown>();
  /** Plugins that returned Skip at PreFilter / PreScore, whose later calls are skipped. */
  readonly skipFilter = new Set<string>();
  readonly skipScore = new Set<string>();

  write(key: string, value: unknown): void {
    this.data.set(key, value);
  }

  read<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }

  /** A shallow copy for "what if" runs (preemption) that must not disturb this one. */
  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.data) c.data.set(k, v);
    for (const s of this.skipFilter) c.skipFilter.add(s);
    for (const s of this.skipScore) c.skipScore.add(s);
    return c;
  }
}
