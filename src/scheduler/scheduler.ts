import { realClock, type Clock } from '../base/clock.js';
import { setMaxListeners } from 'node:events';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { Namespace, Node, Pod } from 'kubernetes-types/core/v1.js';
import type { SharedIndexInformer } from '../client/cache/shared-informer.js';
import type { SharedInformerFactory } from '../client/cache/shared-informer-factory.js';
import type { EventRecorder } from '../client/events/event-recorder.js';
import type { Client } from '../client/rest/client.js';
import type { Logger } from '../machinery/logger.js';
import { BindingSlots } from './binding-slots.js';
import { SchedulerCache } from './cache/scheduler-cache.js';
import type { SchedulerConfiguration } from './config/scheduler-configuration.js';
import { CycleState } from './framework/cycle-state.js';
import { Framework } from './framework/framework.js';
import type { ClusterEvent, Registry } from './framework/interface.js';
import { PodInfo } from './framework/pod-info.js';
import { Code } from './framework/status.js';
import type { SchedulerMetrics } from './metrics.js';
import { inTreeRegistry } from './plugins/registry.js';
import { SchedulingQueue, type QueueEvent, type SchedulingQueueOptions } from './queue/scheduling-queue.js';
import type { QueuedPodInfo } from './queue/queued-pod-info.js';
import { ScheduleAlgorithm, SchedulingError } from './schedule-algorithm.js';
import { registerEventHandlers } from './event-handlers.js';
import { reportFailure, type Failure } from './report-failure.js';
import { context, trace } from '@opentelemetry/api';
import { ATTR } from '../trace/attributes.js';
import { inChildSpan, recordingSpan, startCausedSpan, startSpan } from '../trace/spans.js';
import { NAMESPACES, NODES, PODS } from '../api/resource-refs.js';


/** Binding cycles in flight before the loop waits (the API server takes ~1,000 writes/s; a few connections carry that). */
export const DEFAULT_BINDING_CONCURRENCY = 16;
/** A backlog resolves every pop at once; the loop hands the event loop to I/O at least this often. */
const YIELD_EVERY_MS = 5;

export interface SchedulerOptions {
  client: Client;
  informers: SharedInformerFactory;
  config: SchedulerConfiguration;
  recorder: EventRecorder;
  logger: Logger;
  metrics: SchedulerMetrics;
  registry?: Registry;
  queue?: SchedulingQueueOptions;
  /** Binding cycles (Permit wait, PreBind, Bind) running at once; default DEFAULT_BINDING_CONCURRENCY. */
  bindingConcurrency?: number;
  /** Time for the queue's back-off, assumed pods' expiry and condition timestamps (default the real clock). */
  clock?: Clock;
  /** Called after each successful binding (benchmarks read latencies from it). */
  onScheduled?: (pod: Pod, node: string, latency: { decisionMs: number; attemptMs: number; e2eMs: number }) => void;
}

interface Profile {
  fwk: Framework;
  percentageOfNodesToScore?: number;
}

/**
 * The scheduler: pending pods come off the queue one at a time, a decision
 * is made synchronously against the cache, the pod is assumed on its node,
 * and the binding (Permit, PreBind, Bind) then runs in the background so the
 * next decision need not wait for the API server.
 */
export class Scheduler {
  readonly cache: SchedulerCache;
  readonly queue: SchedulingQueue;
  private readonly clock: Clock;
  readonly profiles = new Map<string, Profile>();
  readonly pods: SharedIndexInformer<Pod>;
  readonly nodes: SharedIndexInformer<Node>;
  private readonly algorithm: ScheduleAlgorithm;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly bindings: BindingSlots;
  private readonly pluginEvents = new Map<string, readonly ClusterEvent[]>();

  constructor(private readonly o: SchedulerOptions) {
    const f = o.informers;
    this.pods = f.forResource<Pod>(PODS);
    this.nodes = f.forResource<Node>(NODES);
    const namespaces = f.forResource<Namespace>(NAMESPACES);
    this.clock = o.clock ?? realClock;
    this.cache = new SchedulerCache({ clock: this.clock });
    this.queue = new SchedulingQueue({ clock: this.clock, ...o.queue, isRelevant: (plugins, event) => this.isRelevant(plugins, event) });
    this.algorithm = new ScheduleAlgorithm(this.cache, this.queue);
    this.bindings = new BindingSlots(o.bindingConcurrency ?? DEFAULT_BINDING_CONCURRENCY);
    for (const p of o.config.profiles) {
      const fwk = new Framework(p.schedulerName, o.registry ?? inTreeRegistry, p.plugins, {
        client: o.client,
        informers: f,
        snapshot: this.cache,
        nominator: this.queue,
        namespaceLabels: (ns) => namespaces.lister.get(ns)?.metadata?.labels,
        schedulerName: p.schedulerName,
      });
      this.profiles.set(p.schedulerName, { fwk, percentageOfNodesToScore: p.percentageOfNodesToScore ?? o.config.percentageOfNodesToScore });
      for (const [name, events] of fwk.clusterEvents()) this.pluginEvents.set(name, events);
    }
  }

  /** Whether a pod's schedulerName is one of our profiles. */
  responsibleFor(pod: Pod): boolean {
    return this.profiles.has(pod.spec?.schedulerName || 'default-scheduler');
  }

  /** Lists and watches, then schedules until the signal aborts; waits for in-flight bindings. */
  async run(signal: AbortSignal): Promise<void> {
    // One abort listener per informer, loop and waiter is expected, not a leak.
    setMaxListeners(100, signal);
    this.o.informers.start(signal);
    if (!(await this.o.informers.waitForCacheSync(signal))) return;
    const registrations = registerEventHandlers(this, this.o.informers, [...new Set([...this.pluginEvents.values()].flat().map((e) => e.resource))]);
    const loops = [this.queue.run(signal), this.cache.run(signal)];
    this.o.logger.info('scheduler started', { profiles: [...this.profiles.keys()], nodes: this.cache.list().length });
    try {
      let lastYield = performance.now();
      while (!signal.aborted) {
        await this.bindings.waitForFree(signal);
        await this.scheduleOne(signal);
        if (performance.now() - lastYield >= YIELD_EVERY_MS) {
          await nextMacrotask();
          lastYield = performance.now();
        }
      }
    } finally {
      this.queue.close();
      await Promise.all([...loops, ...this.inFlight]);
      for (const r of registrations) r.remove();
    }
  }

  /** Called by event handlers: a cluster change that may help parked pods. */
  onClusterEvent(event: QueueEvent): void {
    this.queue.moveAllToActiveOrBackoffQueue(event);
  }

  private isRelevant(plugins: ReadonlySet<string>, event: QueueEvent): boolean {
    for (const p of plugins) {
      const events = this.pluginEvents.get(p);
      // A plugin that declares no events is retried on any change.
      if (!events || events.some((e) => e.resource === event.resource && e.actions.includes(event.action))) return true;
    }
    return false;
  }

  /** Takes one pod off the queue and makes (and starts acting on) a decision for it. */
  async scheduleOne(signal: AbortSignal): Promise<void> {
    const q = await this.queue.pop(signal);
    this.updateQueueMetrics();
    if (!q) return;
    const causes = q.causes ?? [];
    if (causes.length === 0) return this.schedulePopped(q);
    q.causes = undefined;
    // the journey: the watch deliveries that queued the pod → its wait in the queue → this scheduling cycle
    const attrs = { [ATTR.namespace]: q.info.pod.metadata?.namespace ?? '', [ATTR.name]: q.info.pod.metadata?.name ?? '' };
    const waited = startCausedSpan('scheduling queue', causes, { hop: 'queue', initiator: 'queue', attributes: { ...attrs, 'skiff.attempts': q.attempts }, startTime: q.timestamp });
    waited.span.end();
    const cycle = startSpan(`schedule ${q.info.key}`, { hop: 'schedule', parent: waited.ctx, attributes: attrs });
    try {
      await context.with(trace.setSpan(waited.ctx, cycle), () => this.schedulePopped(q));
    } finally {
      cycle.end();
    }
  }

  private async schedulePopped(q: QueuedPodInfo): Promise<void> {
    const pod = q.info.pod;
    const profile = this.profiles.get(pod.spec?.schedulerName || 'default-scheduler');
    if (!profile || pod.metadata?.deletionTimestamp || this.cache.isAssumed(pod)) {
      this.queue.done(q.info.key);
      return;
    }
    const { fwk } = profile;
    const start = performance.now();
    const state = new CycleState();
    const cycle = this.queue.schedulingCycle();
    let outcome: ReturnType<ScheduleAlgorithm['schedulePod']>;
    try {
      outcome = this.algorithm.schedulePod(fwk, state, q.info, profile.percentageOfNodesToScore);
    } catch (err) {
      this.fail(fwk, q, cycle, start, { reason: 'SchedulerError', message: err instanceof SchedulingError ? err.message : String(err), plugins: new Set() });
      return;
    }
    if ('fitError' in outcome) {
      const { diagnosis } = outcome.fitError;
      let nominatedNodeName: string | undefined;
      if (fwk.postFilter.length > 0 && outcome.fitError.numAllNodes > 0) {
        this.o.metrics.preemptionAttempts.inc();
        const r = await fwk.runPostFilterPlugins(state, q.info, diagnosis.nodeStatuses);
        if (!r.status.isSuccess() && r.status.message()) diagnosis.postFilterMessage = r.status.message();
        nominatedNodeName = r.nominatedNodeName;
      }
      this.fail(fwk, q, cycle, start, { reason: 'Unschedulable', message: outcome.fitError.message(), plugins: diagnosis.unschedulablePlugins, nominatedNodeName });
      return;
    }
    const node = outcome.node;
    const decisionMs = performance.now() - start;
    const assumed = new PodInfo({ ...pod, spec: { ...pod.spec!, nodeName: node } });
    this.cache.assumePod(assumed);
    const undo = (message: string, reason: Failure['reason'], plugins = new Set<string>()): void => {
      fwk.runReservePluginsUnreserve(state, assumed, node);
      this.cache.forgetPod(assumed.pod);
      this.fail(fwk, q, cycle, start, { reason, message, plugins });
    };
    const reserve = fwk.runReservePluginsReserve(state, assumed, node);
    if (!reserve.isSuccess()) return undo(reserve.message(), reserve.isRejected() ? 'Unschedulable' : 'SchedulerError', new Set([reserve.plugin]));
    const permit = fwk.runPermitPlugins(state, assumed, node);
    if (!permit.isSuccess() && permit.code !== Code.Wait) return undo(permit.message(), permit.isRejected() ? 'Unschedulable' : 'SchedulerError', new Set([permit.plugin]));
    this.bindings.take();
    const span = recordingSpan();
    if (span) {
      span.setAttributes({ [ATTR.node]: node, 'skiff.nodes.evaluated': outcome.evaluatedNodes, 'skiff.nodes.feasible': outcome.feasibleNodes });
      // the chosen node's verdict from each filter plugin (rejections of other nodes are events of their own, see runFilterPlugins)
      for (const p of fwk.filter) span.addEvent('filter', { 'skiff.plugin': p.name, 'k8s.node.name': node, 'skiff.verdict': state.skipFilter.has(p.name) ? 'Skip' : 'Success' });
    }
    const binding = inChildSpan(`bind ${q.info.key} to ${node}`, { hop: 'bind', attributes: { [ATTR.node]: node } }, () => this.bindingCycle(fwk, state, q, assumed, node, start, decisionMs));
    this.track(binding.finally(() => this.bindings.release()));
  }

  private async bindingCycle(fwk: Framework, state: CycleState, q: QueuedPodInfo, assumed: PodInfo, node: string, start: number, decisionMs: number): Promise<void> {
    let status = await fwk.waitOnPermit(assumed);
    if (status.isSuccess()) status = await fwk.runPreBindPlugins(state, assumed, node);
    if (status.isSuccess()) status = await fwk.runBindPlugins(state, assumed, node);
    if (!status.isSuccess()) {
      fwk.runReservePluginsUnreserve(state, assumed, node);
      this.cache.forgetPod(assumed.pod);
      // The room it held is free again.
      this.queue.moveAllToActiveOrBackoffQueue({ resource: 'AssignedPod', action: 'Delete' });
      this.fail(fwk, q, this.queue.schedulingCycle(), start, { reason: status.isRejected() ? 'Unschedulable' : 'SchedulerError', message: status.message(), plugins: new Set([status.plugin]) });
      return;
    }
    this.cache.finishBinding(assumed.pod);
    this.queue.deleteNominatedPod(q.info.key);
    this.queue.done(q.info.key);
    const m = assumed.pod.metadata!;
    this.o.recorder.event(assumed.pod, 'Normal', 'Scheduled', `Successfully assigned ${m.namespace}/${m.name} to ${node}`);
    const attemptMs = performance.now() - start;
    const e2eMs = this.clock.now() - q.initialAttemptTimestamp;
    this.o.metrics.attempts.inc({ result: 'scheduled', profile: fwk.profileName });
    this.o.metrics.attemptDuration.observe({ result: 'scheduled', profile: fwk.profileName }, attemptMs / 1000);
    this.o.metrics.e2eDuration.observe({}, e2eMs / 1000);
    fwk.runPostBindPlugins(state, assumed, node);
    this.o.onScheduled?.(assumed.pod, node, { decisionMs, attemptMs, e2eMs });
  }

  private fail(fwk: Framework, q: QueuedPodInfo, cycle: number, start: number, failure: Failure): void {
    const result = failure.reason === 'Unschedulable' ? 'unschedulable' : 'error';
    this.o.metrics.attempts.inc({ result, profile: fwk.profileName });
    this.o.metrics.attemptDuration.observe({ result, profile: fwk.profileName }, (performance.now() - start) / 1000);
    const current = this.pods.lister.namespace(q.info.pod.metadata?.namespace ?? '').get(q.info.pod.metadata?.name ?? '');
    if (current && !current.spec?.nodeName && current.metadata?.uid === q.info.pod.metadata?.uid) {
      q.unschedulablePlugins = failure.plugins;
      this.queue.addUnschedulableIfNotPresent(q, cycle, failure.reason === 'SchedulerError');
    }
    if (failure.nominatedNodeName !== undefined) this.queue.nominate(q.info, failure.nominatedNodeName);
    this.queue.done(q.info.key);
    if (failure.reason === 'SchedulerError') this.o.logger.warn('error scheduling pod; retrying', { pod: q.info.key, err: failure.message });
    if (!current) return;
    this.track(reportFailure({ client: this.o.client, recorder: this.o.recorder, logger: this.o.logger, clock: this.clock }, current, failure));
  }

  private track(p: Promise<void>): void {
    const tracked = p.catch((err: unknown) => this.o.logger.error('scheduler background task failed', { err })).finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private updateQueueMetrics(): void {
    const s = this.queue.sizes();
    this.o.metrics.pendingPods.set({ queue: 'active' }, s.active);
    this.o.metrics.pendingPods.set({ queue: 'backoff' }, s.backoff);
    this.o.metrics.pendingPods.set({ queue: 'unschedulable' }, s.unschedulable);
  }
}
