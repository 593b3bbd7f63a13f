import { realClock, type Clock } from '../../base/clock.js';
/** How a pod looks in the informer cache right now. */
export type CachedPodState = 'absent' | 'present' | 'deleting';

interface Pending {
  creates: Map<string, number>;
  deletes: Map<string, number>;
}

/** Upstream's expectations timeout: after this a lost watch event stops blocking the controller. */
const EXPECTATION_TTL_MS = 5 * 60_000;

/**
 * Remembers the pods a controller just created or deleted until its cache
 * shows them, so that a reconcile running on a lagging cache does not create
 * (or delete) the same pods again. Keyed by the owner's `namespace/name`.
 */
export class PodExpectations {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly clock: Clock = realClock) {}

  expectCreate(key: string, podName: string): void {
    this.entry(key).creates.set(podName, this.clock.now());
  }

  expectDelete(key: string, podName: string): void {
    this.entry(key).deletes.set(podName, this.clock.now());
  }

  /** Forgets expectations the cache now reflects (or that expired); true when none remain. */
  satisfied(key: string, stateOf: (podName: string) => CachedPodState): boolean {
    const p = this.pending.get(key);
    if (!p) return true;
    const cutoff = this.clock.now() - EXPECTATION_TTL_MS;
    for (const [name, at] of p.creates) if (at < cutoff || stateOf(name) !== 'absent') p.creates.delete(name);
    for (const [name, at] of p.deletes) if (at < cutoff || stateOf(name) !== 'present') p.deletes.delete(name);
    if (p.creates.size + p.deletes.size > 0) return false;
    this.pending.delete(key);
    return true;
  }

  /** A create failed or the owner is gone: stop waiting for it. */
  forget(key: string, podName?: string): void {
    if (podName === undefined) {
      this.pending.delete(key);
      return;
    }
    this.pending.get(key)?.creates.delete(podName);
    this.pending.get(key)?.deletes.delete(podName);
  }

  private entry(key: string): Pending {
    let p = this.pending.get(key);
    if (!p) this.pending.set(key, (p = { creates: new Map(), deletes: new Map() }));
    return p;
  }
}
