import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Client } from '../rest/client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../rest/error-predicates.js';
import { realClock, type Clock } from '../../base/clock.js';
import { LEASES } from '../../api/resource-refs.js';

export interface LeaderElectionOptions {
  lease: { namespace: string; name: string };
  /** Unique per candidate process, e.g. hostname + random suffix. */
  identity: string;
  client: Client;
  /** Stops the election; a leader steps down. */
  signal: AbortSignal;
  /** How long others wait after the last renew before taking over (default 15 s). */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a failed renew before giving up (default 10 s). */
  renewDeadlineMs?: number;
  /** Interval between attempts (default 2 s). */
  retryPeriodMs?: number;
  /** Clears the lease on stop so another candidate takes over at once. */
  releaseOnCancel?: boolean;
  /** Runs while leading; its signal aborts when leadership is lost or the election stops. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  onStoppedLeading?(): void;
  onNewLeader?(identity: string): void;
  onError?(err: unknown): void;
  /** Time and waits (default the real clock). */
  clock?: Clock;
}

export interface LeaderElectionTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** client-go's and kube-controller-manager's defaults: 15 s lease, 10 s renew deadline, 2 s retry. */
export const LEADER_ELECTION_DEFAULTS: Readonly<LeaderElectionTimings> = Object.freeze({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });

/**
 * The timings an election runs with. The renew deadline must be shorter than
 * the lease, or a leader that stopped renewing could still believe it leads
 * when another candidate takes over.
 */
export function leaderElectionTimings(o: Partial<LeaderElectionTimings>): LeaderElectionTimings {
  const t = {
    leaseDurationMs: o.leaseDurationMs ?? LEADER_ELECTION_DEFAULTS.leaseDurationMs,
    renewDeadlineMs: o.renewDeadlineMs ?? LEADER_ELECTION_DEFAULTS.renewDeadlineMs,
    retryPeriodMs: o.retryPeriodMs ?? LEADER_ELECTION_DEFAULTS.retryPeriodMs,
  };
  if (t.renewDeadlineMs >= t.leaseDurationMs) throw new RangeError('leaseDuration must be greater than renewDeadline');
  if (t.retryPeriodMs <= 0 || t.renewDeadlineMs <= t.retryPeriodMs) throw new RangeError('renewDeadline must be greater than retryPeriod, which must be positive');
  return t;
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Campaigns for a coordination.k8s.io/v1 Lease until this candidate leads,
 * then renews it. Updates carry the resourceVersion read, so two candidates
 * racing for an expired lease cannot both win; a conflict just means "retry".
 * Resolves after leadership is lost or the signal aborts (and
 * onStartedLeading's work has returned).
 */
export async function runLeaderElection(o: LeaderElectionOptions): Promise<void> {
  const { leaseDurationMs: leaseDuration, renewDeadlineMs: renewDeadline, retryPeriodMs: retryPeriod } = leaderElectionTimings(o);
  const clock = o.clock ?? realClock;
  const now = () => clock.now();
  // expiries and deadlines are durations: a wall-clock step must not move them (two leaders otherwise)
  const elapsed = () => clock.monotonic();
  const sleep = (ms: number, signal: AbortSignal) => clock.sleep(ms, signal);
  const leases = o.client.resource<Lease>(LEASES).namespace(o.lease.namespace);
  let observed: { holder: string; renewTime: string; at: number } | undefined;
  let lastLeader = '';

  const tryAcquireOrRenew = async (signal: AbortSignal): Promise<boolean> => {
    const t = now();
    const at = elapsed();
    const spec = { holderIdentity: o.identity, leaseDurationSeconds: Math.max(1, Math.round(leaseDuration / 1000)), acquireTime: microTime(t), renewTime: microTime(t), leaseTransitions: 0 };
    let current: Lease;
    try {
      current = await leases.get(o.lease.name, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await leases.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: o.lease.name, namespace: o.lease.namespace }, spec }, { signal });
        return true;
      } catch (createErr) {
        if (isAlreadyExists(createErr)) return false;
        throw createErr;
      }
    }
    const holder = current.spec?.holderIdentity ?? '';
    const renewTime = current.spec?.renewTime ?? '';
    // Expiry is judged on our own clock from when we saw the record change, not on the holder's timestamps.
    if (!observed || observed.holder !== holder || observed.renewTime !== renewTime) observed = { holder, renewTime, at };
    if (holder && holder !== lastLeader) {
      lastLeader = holder;
      o.onNewLeader?.(holder);
    }
    const leading = holder === o.identity;
    if (holder && !leading && observed.at + leaseDuration > at) return false;
    const transitions = current.spec?.leaseTransitions ?? 0;
    const next: Lease = {
      ...current,
      spec: {
        ...spec,
        acquireTime: leading ? (current.spec?.acquireTime ?? spec.acquireTime) : spec.acquireTime,
        leaseTransitions: leading ? transitions : transitions + 1,
      },
    };
    try {
      const updated = await leases.update(next, { signal });
      observed = { holder: o.identity, renewTime: updated.spec?.renewTime ?? '', at };
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  };

  /** One try; `timeoutMs` bounds a renew so a hung request cannot outlast the renew deadline. */
  const attempt = async (timeoutMs?: number): Promise<boolean> => {
    const signal = timeoutMs === undefined ? o.signal : AbortSignal.any([o.signal, AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs)))]);
    try {
      return await tryAcquireOrRenew(signal);
    } catch (err) {
      if (!o.signal.aborted) o.onError?.(err);
      return false;
    }
  };

  // Campaign.
  while (!o.signal.aborted && !(await attempt())) await sleep(retryPeriod * (1 + Math.random() * 0.2), o.signal);
  if (o.signal.aborted) return;

  const leading = new AbortController();
  const stopLeading = (): void => leading.abort();
  o.signal.addEventListener('abort', stopLeading, { once: true });
  if (lastLeader !== o.identity) {
    lastLeader = o.identity;
    o.onNewLeader?.(o.identity);
  }
  const work = Promise.resolve()
    .then(() => o.onStartedLeading(leading.signal))
    .catch((err: unknown) => o.onError?.(err));

  // Renew until a renew cannot succeed within the deadline.
  renewing: while (!o.signal.aborted) {
    await sleep(retryPeriod, o.signal);
    const deadline = elapsed() + renewDeadline;
    while (!o.signal.aborted) {
      if (await attempt(deadline - elapsed())) continue renewing;
      if (elapsed() + retryPeriod > deadline) break renewing;
      await sleep(retryPeriod, o.signal);
    }
  }

  o.signal.removeEventListener('abort', stopLeading);
  leading.abort();
  if (o.signal.aborted && o.releaseOnCancel) await release();
  o.onStoppedLeading?.();
  await work;

  async function release(): Promise<void> {
    try {
      const current = await leases.get(o.lease.name);
      if (current.spec?.holderIdentity !== o.identity) return;
      await leases.update({ ...current, spec: { ...current.spec, holderIdentity: undefined, leaseDurationSeconds: 1, renewTime: microTime(now()) } });
    } catch (err) {
      o.onError?.(err);
    }
  }
}
