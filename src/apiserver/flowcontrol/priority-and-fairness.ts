import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import type { MetricsRegistry } from '../../base/metrics/registry.js';
import { tooManyRequests } from '../filters/max-in-flight.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from './bootstrap-configuration.js';
import { flowDistinguisher, matchFlowSchema, sortFlowSchemas, type RequestDigest } from './classify.js';
import { allocateConcurrency, SeatDemand } from './concurrency-allocation.js';
import { DEFAULT_EVENT_LOOP_GATE, runEventLoopGate, type EventLoopGateOptions } from './event-loop-gate.js';
import { QueueSet, type QueueSetConfig } from './queue-set.js';
import { flowHash } from './shuffle-shard.js';

export interface FlowControlSettings {
  /** Seats shared by all limited priority levels: --max-requests-inflight + --max-mutating-requests-inflight, as upstream. */
  serverConcurrencyLimit: number;
  /** Longest a request waits in a queue before it is rejected (upstream: a quarter of --request-timeout, 15 s). */
  requestWaitLimitMs: number;
  /** How often seats are lent and borrowed between levels (upstream: 10 s). */
  borrowingPeriodMs?: number;
  /** Scale the Limited levels' seats down while the event loop lags (see event-loop-gate.ts); false: never. */
  eventLoopGate?: EventLoopGateOptions | false;
  /** Milliseconds on a monotonic clock, for measuring seat demand (default: performance.now). */
  now?: () => number;
}

/** What a request was classified as; the UIDs go into the response headers. */
export interface Classification {
  flowSchema: FlowSchema;
  priorityLevel: PriorityLevelConfiguration;
  distinguisher: string;
}

interface Level {
  config: PriorityLevelConfiguration;
  /** Undefined for the exempt type: never limited. */
  queues?: QueueSet;
  nominalLimit: number;
  /** NominalCL − LendableCL: the least this level keeps when others borrow. */
  lowerLimit: number;
  /** NominalCL + BorrowingCL: the most it may have by borrowing. */
  upperLimit: number;
  /** CurrentCL, set by borrowing every period. */
  currentLimit: number;
  demand?: SeatDemand;
}

/** Upstream's default nominalConcurrencyShares when a Limited level leaves it out. */
const DEFAULT_SHARES = 30;
const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);

/**
 * API Priority and Fairness (upstream's apf_controller + queueset): each
 * request is classified by the first matching FlowSchema into a priority
 * level and a flow (schema + user or namespace); exempt levels run at once,
 * limited ones share the server's seats in proportion to their
 * nominalConcurrencyShares and queue the rest per flow with shuffle
 * sharding. A request that cannot get a seat gets upstream's 429. Every
 * borrowing period the Limited levels' current limits are reallocated from
 * their seat demand within their lendable and borrowing bounds. Work
 * estimation (a list costing more than one seat) is not done: every
 * request takes one seat.
 */
export class PriorityAndFairness {
  private schemas: FlowSchema[] = [];
  private levels = new Map<string, Level>();
  private readonly rejected;
  private readonly dispatched;
  private readonly inQueue;
  private readonly executing;
  private readonly nominalSeats;
  private readonly waitDuration;
  private readonly dropped;
  private readonly currentSeats;
  private readonly lowerSeats;
  private readonly upperSeats;
  /** The event loop gate's factor on the Limited levels' current limits. */
  private loadFactor = 1;

  constructor(
    private readonly settings: FlowControlSettings,
    metrics: MetricsRegistry,
  ) {
    this.rejected = metrics.counter('apiserver_flowcontrol_rejected_requests_total', 'Number of requests rejected by API Priority and Fairness subsystem', ['flow_schema', 'priority_level', 'reason']);
    this.dispatched = metrics.counter('apiserver_flowcontrol_dispatched_requests_total', 'Number of requests executed by API Priority and Fairness subsystem', ['flow_schema', 'priority_level']);
    this.inQueue = metrics.gauge('apiserver_flowcontrol_current_inqueue_requests', 'Number of requests currently pending in queues of the API Priority and Fairness subsystem', ['flow_schema', 'priority_level']);
    this.executing = metrics.gauge('apiserver_flowcontrol_current_executing_requests', 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem', ['flow_schema', 'priority_level']);
    this.nominalSeats = metrics.gauge('apiserver_flowcontrol_nominal_limit_seats', 'Nominal number of execution seats configured for each priority level', ['priority_level']);
    this.waitDuration = metrics.histogram('apiserver_flowcontrol_request_wait_duration_seconds', 'Length of time a request spent waiting in its queue', ['flow_schema', 'priority_level', 'execute'], [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30]);
    this.currentSeats = metrics.gauge('apiserver_flowcontrol_current_limit_seats', 'current derived number of execution seats available to each priority level', ['priority_level']);
    this.lowerSeats = metrics.gauge('apiserver_flowcontrol_lower_limit_seats', 'Configured lower bound on number of execution seats available to each priority level', ['priority_level']);
    this.upperSeats = metrics.gauge('apiserver_flowcontrol_upper_limit_seats', 'Configured upper bound on number of execution seats available to each priority level', ['priority_level']);
    this.dropped = metrics.counter('apiserver_dropped_requests_total', 'Number of requests dropped with "Too many requests" error, by request kind.', ['request_kind']);
    // until the stored objects are read, the configuration they start as
    this.configure(SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS);
  }

  /**
   * Applies the FlowSchemas and PriorityLevelConfigurations as they are
   * stored. The mandatory objects are used even if missing; schemas whose
   * priority level does not exist (dangling) are ignored, as upstream.
   */
  configure(schemas: readonly FlowSchema[], levels: readonly PriorityLevelConfiguration[]): void {
    const byName = new Map(levels.map((l) => [l.metadata?.name ?? '', l]));
    for (const m of MANDATORY_PRIORITY_LEVELS) if (!byName.has(m.metadata!.name!)) byName.set(m.metadata!.name!, m);
    const schemaNames = new Set(schemas.map((s) => s.metadata?.name));
    const all = [...schemas, ...MANDATORY_FLOW_SCHEMAS.filter((m) => !schemaNames.has(m.metadata!.name))];
    this.schemas = sortFlowSchemas(all.filter((s) => byName.has(s.spec?.priorityLevelConfiguration?.name ?? '')));

    // upstream's sum counts the exempt level's shares too (0 in its bootstrap object)
    const totalShares = [...byName.values()].reduce((sum, l) => sum + shares(l), 0);
    const scl = this.settings.serverConcurrencyLimit;
    const next = new Map<string, Level>();
    for (const [name, config] of byName) {
      if (config.spec?.type !== 'Limited') {
        next.set(name, { config, nominalLimit: 0, lowerLimit: 0, upperLimit: 0, currentLimit: 0 });
        continue;
      }
      const nominalLimit = totalShares > 0 ? Math.ceil((scl * shares(config)) / totalShares) : 0;
      const lendable = Math.round((nominalLimit * (config.spec.limited?.lendablePercent ?? 0)) / 100);
      const borrowingPercent = config.spec.limited?.borrowingLimitPercent;
      const borrowing = borrowingPercent === undefined || borrowingPercent === null ? scl : Math.round((nominalLimit * borrowingPercent) / 100);
      const lowerLimit = nominalLimit - lendable;
      const upperLimit = nominalLimit + borrowing;
      const queuing = queueSetConfig(config, nominalLimit);
      const previous = this.levels.get(name);
      const old = previous?.queues;
      let queues: QueueSet;
      let currentLimit: number;
      let demand: SeatDemand;
      if (old?.sameQueues(queuing) && previous?.demand) {
        queues = old;
        demand = previous.demand;
        currentLimit = Math.max(lowerLimit, Math.min(upperLimit, previous.currentLimit));
      } else {
        // requests waiting in a replaced set are still served by it
        queues = new QueueSet(queuing);
        demand = new SeatDemand(this.settings.now ?? (() => performance.now()));
        queues.onDemand = (seats) => demand.set(seats);
        // as upstream, a new level starts lending half of what it may lend
        currentLimit = nominalLimit - Math.floor(lendable / 2);
      }
      next.set(name, { config, queues, nominalLimit, lowerLimit, upperLimit, currentLimit, demand });
      this.nominalSeats.set({ priority_level: name }, nominalLimit);
      this.lowerSeats.set({ priority_level: name }, lowerLimit);
      this.upperSeats.set({ priority_level: name }, upperLimit);
    }
    this.levels = next;
    this.applyLimits();
  }

  /**
   * Lends and borrows seats (upstream's periodic rebalancing): each Limited
   * level's demand over the period ending now (seats executing plus seats
   * waiting) gives it a target of at least its high watermark capped at its
   * nominal limit, and of its smoothed demand; the nominal limits' sum is
   * shared out in proportion to the targets, each level within its lower
   * (nominal − lendable) and upper (nominal + borrowing) limit.
   */
  rebalance(): void {
    const limited = [...this.levels.values()].filter((l) => l.queues && l.demand);
    const items = limited.map((l) => {
      l.demand!.endPeriod();
      const lowerBound = Math.max(l.lowerLimit, Math.min(l.nominalLimit, l.demand!.highWatermark));
      return { lowerBound, upperBound: l.upperLimit, target: Math.max(lowerBound, l.demand!.smoothed) };
    });
    const total = limited.reduce((sum, l) => sum + l.nominalLimit, 0);
    const allocation = allocateConcurrency(total, items);
    limited.forEach((l, i) => (l.currentLimit = Math.round(allocation[i])));
    this.applyLimits();
  }

  /** Rebalances every borrowing period and follows the event loop gate, until `signal` aborts. */
  run(signal: AbortSignal): void {
    const timer = setInterval(() => this.rebalance(), this.settings.borrowingPeriodMs ?? 10_000);
    timer.unref();
    signal.addEventListener('abort', () => clearInterval(timer), { once: true });
    const gate = this.settings.eventLoopGate ?? DEFAULT_EVENT_LOOP_GATE;
    if (gate)
      runEventLoopGate(gate, signal, (factor) => {
        this.loadFactor = factor;
        this.applyLimits();
      });
  }

  /** The seats each Limited level may use now: its current limit, scaled by the event loop gate (at least one). */
  private applyLimits(): void {
    for (const [name, level] of this.levels) {
      if (!level.queues) continue;
      const seats = this.loadFactor === 1 ? level.currentLimit : Math.max(1, Math.round(level.currentLimit * this.loadFactor));
      level.queues.setConcurrencyLimit(seats);
      this.currentSeats.set({ priority_level: name }, seats);
    }
  }

  /** The first matching schema and its level; the mandatory catch-all matches every authenticated or anonymous user. */
  classify(digest: RequestDigest): Classification {
    const flowSchema = matchFlowSchema(this.schemas, digest) ?? this.schemas[this.schemas.length - 1];
    const level = this.levels.get(flowSchema.spec!.priorityLevelConfiguration.name)!;
    return { flowSchema, priorityLevel: level.config, distinguisher: flowDistinguisher(flowSchema, digest) };
  }

  /**
   * Waits for the request's seat and returns its release, or throws 429.
   * `onClassified` is called first, whatever the outcome (the response
   * headers name the schema and level by UID, also on a rejection).
   */
  async admit(digest: RequestDigest, signal: AbortSignal | (() => AbortSignal), onClassified: (c: Classification) => void): Promise<() => void> {
    const c = this.classify(digest);
    onClassified(c);
    const labels = { flow_schema: c.flowSchema.metadata!.name!, priority_level: c.priorityLevel.metadata!.name! };
    const level = this.levels.get(labels.priority_level)!;
    let release: () => void = () => {};
    if (level.queues) {
      const outcome = await level.queues.admit(flowHash(labels.flow_schema, c.distinguisher), this.settings.requestWaitLimitMs, signal, (inQueue) => this.inQueue.inc(labels, inQueue ? 1 : -1));
      this.waitDuration.observe({ ...labels, execute: String(outcome.admitted) }, outcome.waitedMs / 1000);
      if (!outcome.admitted) {
        this.rejected.inc({ ...labels, reason: outcome.reason });
        this.dropped.inc({ request_kind: NON_MUTATING_VERBS.has(digest.info.verb) ? 'readOnly' : 'mutating' });
        throw tooManyRequests();
      }
      release = outcome.release;
    }
    this.dispatched.inc(labels);
    this.executing.inc(labels);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.executing.inc(labels, -1);
      release();
    };
  }
}

function shares(l: PriorityLevelConfiguration): number {
  if (l.spec?.type !== 'Limited') return l.spec?.exempt?.nominalConcurrencyShares ?? 0;
  return l.spec?.limited?.nominalConcurrencyShares ?? DEFAULT_SHARES;
}

function queueSetConfig(l: PriorityLevelConfiguration, concurrencyLimit: number): QueueSetConfig {
  const response = l.spec?.limited?.limitResponse;
  if (response?.type !== 'Queue') return { concurrencyLimit, queues: 0, handSize: 0, queueLengthLimit: 0 };
  // upstream's defaults for queuing fields left out
  const q = response.queuing ?? {};
  return { concurrencyLimit, queues: q.queues ?? 64, handSize: q.handSize ?? 8, queueLengthLimit: q.queueLengthLimit ?? 50 };
}
