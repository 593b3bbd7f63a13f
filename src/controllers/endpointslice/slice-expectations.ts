import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { realClock, type Clock } from '../../base/clock.js';

interface Pending {
  /** Slice name → resourceVersion our write produced, or null for a delete. */
  writes: Map<string, string | null>;
  expires: number;
}

/**
 * Remembers this controller's own slice writes per service until the
 * informer has seen them (upstream's EndpointSliceTracker): planning from a
 * cache that lacks a slice we just created would create it twice.
 * Expectations lapse after `ttlMs` so a missed event cannot wedge a service.
 */
export class SliceExpectations {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly ttlMs = 30_000,
    private readonly clock: Clock = realClock,
  ) {}

  expectWritten(service: string, slice: EndpointSlice): void {
    this.entry(service).writes.set(slice.metadata?.name ?? '', slice.metadata?.resourceVersion ?? '');
  }

  expectDeleted(service: string, name: string): void {
    this.entry(service).writes.set(name, null);
  }

  /** True when the cache reflects every write we made for the service. */
  satisfied(service: string, cached: (name: string) => EndpointSlice | undefined): boolean {
    const p = this.pending.get(service);
    if (!p) return true;
    if (this.clock.now() > p.expires) {
      this.pending.delete(service);
      return true;
    }
    for (const [name, rv] of p.writes) {
      const slice = cached(name);
      const seen = rv === null ? slice === undefined : slice !== undefined && atLeast(slice.metadata?.resourceVersion ?? '', rv);
      if (!seen) return false;
    }
    this.pending.delete(service);
    return true;
  }

  forget(service: string): void {
    this.pending.delete(service);
  }

  private entry(service: string): Pending {
    let p = this.pending.get(service);
    if (!p) this.pending.set(service, (p = { writes: new Map(), expires: 0 }));
    p.expires = this.clock.now() + this.ttlMs;
    return p;
  }
}

/** Resource versions are opaque, but skiff's (like etcd's) are increasing integers. */
function atLeast(seen: string, wrote: string): boolean {
  if (/^\d+$/.test(seen) && /^\d+$/.test(wrote)) return BigInt(seen) >= BigInt(wrote);
  return seen === wrote;
}
