import type { Pod } from 'kubernetes-types/core/v1.js';
import { realClock, type Clock } from '../../base/clock.js';
import type { ClusterEventAction, ClusterEventResource, Nominator } from '../framework/interface.js';
import { PodInfo, podKey } from '../framework/pod-info.js';
import { Heap } from './heap.js';
import type { QueuedPodInfo } from './queued-pod-info.js';
import type { SpanContext } from '@opentelemetry/api';
import { addCause, currentCause } from '../../trace/spans.js';

/** Asked once per node per attempt; almost always empty, so one shared empty answer. */
const NONE: readonly PodInfo[] = Object.freeze([]);

export interface QueueEvent {
  resource: ClusterEventResource;
  action: ClusterEventAction;
}

export interface SchedulingQueueOptions {
  /** Time for back-off and queue ages, and the flush loop's waits (default the real clock). */
  clock?: Clock;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Unschedulable pods older than this are retried even without a relevant event (default 5 min). */
  maxInUnschedulableMs?: number;
  /** Whether an event may help a pod rejected by these plugins (default: always). */
  isRelevant?: (plugins: ReadonlySet<string>, event: QueueEvent) => boolean;
}

export interface QueueSizes {
  active: number;
  backoff: number;
  unschedulable: number;
}

/**
 * Upstream's PriorityQueue: activeQ (priority, then age), backoffQ (ordered
 * by when backoff ends: 1 s doubling per attempt up to 10 s) and a pool of
 * unschedulable pods that only a relevant cluster event, or the periodic
 * flush, sends back.
 */
export class SchedulingQueue implements Nominator {
  private readonly activeQ = new Heap<QueuedPodInfo>((q) => q.info.key, (a, b) => a.info.priority > b.info.priority || (a.info.priority === b.info.priority && a.timestamp < b.timestamp));
  private readonly backoffQ = new Heap<QueuedPodInfo>((q) => q.info.key, (a, b) => this.backoffExpiry(a) < this.backoffExpiry(b));
  private readonly unschedulable = new Map<string, QueuedPodInfo>();
  /** Pods popped and not yet done; an update to one is remembered here. */
  private readonly inFlight = new Map<string, Pod | undefined>();
  private readonly nominated = new Map<string, Map<string, PodInfo>>();
  private readonly nominatedNodeOf = new Map<string, string>();
  private waiters: (() => void)[] = [];
  private cycle = 0;
  private moveRequestCycle = -1;
  private closed = false;
  private readonly clock: Clock;
  private readonly initialBackoff: number;
  private readonly maxBackoff: number;
  private readonly maxInUnschedulable: number;

  constructor(private readonly options: SchedulingQueueOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.initialBackoff = options.initialBackoffMs ?? 1000;
    this.maxBackoff = options.maxBackoffMs ?? 10_000;
    this.maxInUnschedulable = options.maxInUnschedulableMs ?? 5 * 60_000;
  }

  schedulingCycle(): number {
    return this.cycle;
  }

  sizes(): QueueSizes {
    return { active: this.activeQ.size, backoff: this.backoffQ.size, unschedulable: this.unschedulable.size };
  }

  /** A new pending pod. */
  add(pod: Pod): void {
    const t = this.clock.now();
    const info = new PodInfo(pod);
    this.backoffQ.delete(info.key);
    this.unschedulable.delete(info.key);
    const cause = currentCause();
    this.activeQ.push({ info, timestamp: t, initialAttemptTimestamp: t, attempts: 0, unschedulablePlugins: new Set(), causes: cause ? [cause] : undefined });
    this.updateNomination(info);
    this.wake();
  }

  /** A pending pod changed: refresh it, and retry it now if it was parked. */
  update(pod: Pod): void {
    const key = podKey(pod);
    if (this.inFlight.has(key)) {
      this.inFlight.set(key, pod);
      return;
    }
    const info = new PodInfo(pod);
    this.updateNomination(info);
    const active = this.activeQ.get(key);
    if (active) {
      this.activeQ.push({ ...active, info, causes: withCause(active.causes) });
      return;
    }
    const parked = this.backoffQ.get(key) ?? this.unschedulable.get(key);
    if (!parked) {
      this.add(pod);
      return;
    }
    this.backoffQ.delete(key);
    this.unschedulable.delete(key);
    const q = { ...parked, info, causes: withCause(parked.causes) };
    if (this.isBackingOff(q)) this.backoffQ.push(q);
    else this.pushActive(q);
  }

  delete(pod: Pod): void {
    const key = podKey(pod);
    this.activeQ.delete(key);
    this.backoffQ.delete(key);
    this.unschedulable.delete(key);
    this.deleteNominatedPod(key);
    if (this.inFlight.has(key)) this.inFlight.set(key, undefined);
  }

  /** The next pod to schedule; waits for one. Undefined once closed or aborted. */
  async pop(signal: AbortSignal): Promise<QueuedPodInfo | undefined> {
    while (this.activeQ.size === 0) {
      if (this.closed || signal.aborted) return undefined;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.push(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
    const q = this.activeQ.pop()!;
    q.attempts++;
    this.cycle++;
    this.inFlight.set(q.info.key, q.info.pod);
    return q;
  }

  /** The attempt for this pod is over (scheduled, parked or dropped). */
  done(key: string): void {
    this.inFlight.delete(key);
  }

  /**
   * Parks a pod that failed. If a move request came in while it was being
   * scheduled, the event it missed may have helped, so it only backs off.
   */
  addUnschedulableIfNotPresent(q: QueuedPodInfo, podSchedulingCycle: number, error = false): void {
    const key = q.info.key;
    if (this.activeQ.has(key) || this.backoffQ.has(key) || this.unschedulable.has(key)) return;
    const latest = this.inFlight.get(key);
    if (this.inFlight.has(key) && latest === undefined) return; // deleted meanwhile
    const info = latest && latest !== q.info.pod ? new PodInfo(latest) : q.info;
    const parked: QueuedPodInfo = { ...q, info, timestamp: this.clock.now() };
    this.updateNomination(info);
    if (error || this.moveRequestCycle >= podSchedulingCycle || (latest && latest !== q.info.pod)) this.backoffQ.push(parked);
    else this.unschedulable.set(key, parked);
  }

  /** A cluster event: retries the parked pods it may help. */
  moveAllToActiveOrBackoffQueue(event: QueueEvent): void {
    const relevant = this.options.isRelevant ?? (() => true);
    for (const [key, q] of this.unschedulable) {
      if (q.unschedulablePlugins.size > 0 && !relevant(q.unschedulablePlugins, event)) continue;
      this.unschedulable.delete(key);
      if (this.isBackingOff(q)) this.backoffQ.push(q);
      else this.pushActive(q);
    }
    this.moveRequestCycle = this.cycle;
  }

  /** Moves pods whose backoff ended to the active queue. */
  flushBackoffQCompleted(): void {
    const t = this.clock.now();
    for (let q = this.backoffQ.peek(); q && this.backoffExpiry(q) <= t; q = this.backoffQ.peek()) {
      this.backoffQ.pop();
      this.pushActive(q);
    }
  }

  /** Retries pods that sat unschedulable longer than the limit. */
  flushUnschedulableLeftover(): void {
    const t = this.clock.now();
    for (const [key, q] of this.unschedulable) {
      if (t - q.timestamp < this.maxInUnschedulable) continue;
      this.unschedulable.delete(key);
      if (this.isBackingOff(q)) this.backoffQ.push(q);
      else this.pushActive(q);
    }
  }

  /** Runs the periodic flushes until the signal aborts; then wakes poppers. */
  async run(signal: AbortSignal): Promise<void> {
    let ticks = 0;
    while (!signal.aborted) {
      await this.clock.sleep(Math.min(1000, this.initialBackoff), signal);
      this.flushBackoffQCompleted();
      if (++ticks % 30 === 0) this.flushUnschedulableLeftover();
    }
    this.close();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  nominatedPodsForNode(nodeName: string): readonly PodInfo[] {
    const m = this.nominated.get(nodeName);
    return m ? [...m.values()] : NONE;
  }

  /** Records that a pod waits for `nodeName` (after preemption), or forgets it. */
  nominate(info: PodInfo, nodeName: string | undefined): void {
    this.deleteNominatedPod(info.key);
    if (!nodeName) return;
    let m = this.nominated.get(nodeName);
    if (!m) this.nominated.set(nodeName, (m = new Map()));
    m.set(info.key, info);
    this.nominatedNodeOf.set(info.key, nodeName);
  }

  deleteNominatedPod(key: string): void {
    const node = this.nominatedNodeOf.get(key);
    if (node === undefined) return;
    this.nominatedNodeOf.delete(key);
    const m = this.nominated.get(node);
    m?.delete(key);
    if (m?.size === 0) this.nominated.delete(node);
  }

  private updateNomination(info: PodInfo): void {
    const nn = info.pod.status?.nominatedNodeName;
    if (nn) this.nominate(info, nn);
    else if (this.nominatedNodeOf.has(info.key)) this.nominate(info, this.nominatedNodeOf.get(info.key));
  }

  private pushActive(q: QueuedPodInfo): void {
    this.activeQ.push({ ...q, timestamp: this.clock.now() });
    this.wake();
  }

  private backoffExpiry(q: QueuedPodInfo): number {
    const exp = Math.max(0, q.attempts - 1);
    const d = Math.min(this.initialBackoff * 2 ** Math.min(exp, 30), this.maxBackoff);
    return q.timestamp + d;
  }

  private isBackingOff(q: QueuedPodInfo): boolean {
    return this.backoffExpiry(q) > this.clock.now();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** The causes of a queued pod plus the current one (the watch delivery refreshing it), if traced. */
function withCause(causes: SpanContext[] | undefined): SpanContext[] | undefined {
  const cause = currentCause();
  if (!cause) return causes;
  const next = [...(causes ?? [])];
  addCause(next, cause);
  return next;
}
