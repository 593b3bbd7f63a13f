import { realClock, type Clock } from '../base/clock.js';
/** Where one connection goes. */
export interface Target {
  ip: string;
  port: number;
}

interface Affinity {
  target: Target;
  lastUsed: number;
}

interface Pool {
  targets: Target[];
  next: number;
  affinityTtlMs?: number;
  clients: Map<string, Affinity>;
}

const same = (a: Target, b: Target): boolean => a.ip === b.ip && a.port === b.port;

/**
 * Round-robin over each service's targets (upstream userspace's
 * LoadBalancerRR), with optional ClientIP session affinity: a client keeps
 * its target until it has been idle for the timeout or the target leaves.
 */
export class RoundRobinBalancer {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly clock: Clock = realClock) {}

  /** Replaces a service's targets; unchanged targets keep their affinities. */
  update(key: string, targets: readonly Target[], affinityTimeoutSeconds?: number): void {
    const pool = this.pools.get(key) ?? { targets: [], next: 0, clients: new Map<string, Affinity>() };
    pool.targets = [...targets];
    if (pool.next >= pool.targets.length) pool.next = 0;
    pool.affinityTtlMs = affinityTimeoutSeconds === undefined ? undefined : affinityTimeoutSeconds * 1000;
    if (pool.affinityTtlMs === undefined) pool.clients.clear();
    for (const [ip, a] of pool.clients) if (!pool.targets.some((t) => same(t, a.target))) pool.clients.delete(ip);
    this.pools.set(key, pool);
  }

  remove(key: string): void {
    this.pools.delete(key);
  }

  /** The target for a new connection, or undefined when the service has none. */
  next(key: string, clientIP?: string): Target | undefined {
    const pool = this.pools.get(key);
    if (!pool || pool.targets.length === 0) return undefined;
    const now = this.clock.now();
    if (pool.affinityTtlMs !== undefined && clientIP) {
      const a = pool.clients.get(clientIP);
      if (a && now - a.lastUsed <= pool.affinityTtlMs) {
        a.lastUsed = now;
        return a.target;
      }
    }
    const target = pool.targets[pool.next % pool.targets.length];
    pool.next = (pool.next + 1) % pool.targets.length;
    if (pool.affinityTtlMs !== undefined && clientIP) pool.clients.set(clientIP, { target, lastUsed: now });
    return target;
  }
}
