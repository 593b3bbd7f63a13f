import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import type { MetricsRegistry } from '../../base/metrics/registry.js';
import { tooManyRequests } from '../filters/max-in-flight.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from './bootstrap-configuration.js';
import { flowDistinguisher, matchFlowSchema, sortFlowSchemas, type RequestDigest } from './classify.js';
import { QueueSet, type QueueSetConfig } from './queue-set.js';
import { flowHash } from './shuffle-shard.js';

export interface FlowControlSettings {
  /** Seats shared by all limited priority levels: --max-requests-inflight + --max-mutating-requests-inflight, as upstream. */
  serverConcurrencyLimit: number;
  /** Longest a request waits in a queue before it is rejected (upstream: a quarter of --request-timeout, 15 s). */
  requestWaitLimitMs: number;
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
 * sharding. A request that cannot get a seat gets upstream's 429.
 * Borrowing between levels (lendablePercent) and work estimation (a list
 * costing more than one seat) are not done: every request takes one seat.
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

    const limited = [...byName.values()].filter((l) => l.spec?.type === 'Limited');
    const totalShares = limited.reduce((sum, l) => sum + shares(l), 0);
    const next = new Map<string, Level>();
    for (const [name, config] of byName) {
      if (config.spec?.type !== 'Limited') {
        next.set(name, { config, nominalLimit: 0 });
        continue;
      }
      const nominalLimit = totalShares > 0 ? Math.ceil((this.settings.serverConcurrencyLimit * shares(config)) / totalShares) : 0;
      const queuing = queueSetConfig(config, nominalLimit);
      const old = this.levels.get(name)?.queues;
      let queues: QueueSet;
      if (old?.sameQueues(queuing)) {
        queues = old;
        queues.setConcurrencyLimit(nominalLimit);
      } else {
        // requests waiting in a replaced set are still served by it
        queues = new QueueSet(queuing);
      }
      next.set(name, { config, queues, nominalLimit });
      this.nominalSeats.set({ priority_level: name }, nominalLimit);
    }
    this.levels = next;
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
  async admit(digest: RequestDigest, signal: AbortSignal, onClassified: (c: Classification) => void): Promise<() => void> {
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
  return l.spec?.limited?.nominalConcurrencyShares ?? DEFAULT_SHARES;
}

function queueSetConfig(l: PriorityLevelConfiguration, concurrencyLimit: number): QueueSetConfig {
  const response = l.spec?.limited?.limitResponse;
  if (response?.type !== 'Queue') return { concurrencyLimit, queues: 0, handSize: 0, queueLengthLimit: 0 };
  // upstream's defaults for queuing fields left out
  const q = response.queuing ?? {};
  return { concurrencyLimit, queues: q.queues ?? 64, handSize: q.handSize ?? 8, queueLengthLimit: q.queueLengthLimit ?? 50 };
}
