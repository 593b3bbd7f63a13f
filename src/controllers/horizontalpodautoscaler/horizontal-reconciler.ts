import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import type { HorizontalPodAutoscaler, MetricSpec, MetricStatus } from 'kubernetes-types/autoscaling/v2.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { HORIZONTAL_POD_AUTOSCALERS } from '../../api/resource-refs.js';
import { rfc3339, type Clock } from '../../base/clock.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import type { Client } from '../../client/rest/client.js';
import { isConflict, isNotFound } from '../../client/rest/error-predicates.js';
import { parseSelector, type Selector } from '../../machinery/labels/index.js';
import { semanticEqual } from '../semantic-equal.js';
import { OwnerKinds } from '../garbagecollector/owner-kinds.js';
import { setCondition } from './hpa-conditions.js';
import { MetricError, metricReplicas } from './metric-replicas.js';
import type { ReplicaCalculatorOptions } from './replica-calculator.js';
import { apiPodMetrics, type PodMetricsSource } from './pod-metrics.js';
import { ScaleRecommendations } from './scale-recommendations.js';

export interface HorizontalReconcilerOptions extends ReplicaCalculatorOptions {
  client: Client;
  recorder: EventRecorder;
  hpas: Lister<HorizontalPodAutoscaler>;
  pods: Lister<Pod>;
  clock: Clock;
  /** `--horizontal-pod-autoscaler-sync-period`: each autoscaler is looked at this often. */
  syncPeriodMs: number;
  /** `--horizontal-pod-autoscaler-downscale-stabilization`. */
  downscaleStabilizationMs: number;
  /** Where pod usage comes from (default: metrics.k8s.io through the API). */
  podMetrics?: PodMetricsSource;
}

/** The resource and name a scale subresource lives at. */
interface ScaleTarget {
  gvr: { group: string; version: string; resource: string };
  namespaced: boolean;
  name: string;
}

class ScaleTargetError extends Error {
  override readonly name = 'ScaleTargetError';
}

/**
 * Upstream's HorizontalController.reconcileAutoscaler: reads the target's
 * scale subresource, proposes replicas from the metrics, stabilizes and
 * bounds them, writes the scale and the autoscaler's status, and records
 * events. Expected failures (no target, no metrics, bad spec) end up in
 * conditions and events, never in a thrown error.
 */
export class HorizontalReconciler implements Reconciler {
  private readonly recommendations: ScaleRecommendations;
  private readonly kinds: OwnerKinds;
  private readonly podMetrics: PodMetricsSource;

  constructor(private readonly o: HorizontalReconcilerOptions) {
    this.recommendations = new ScaleRecommendations(o.clock, o.downscaleStabilizationMs);
    this.kinds = new OwnerKinds(o.client, o.clock);
    this.podMetrics = o.podMetrics ?? apiPodMetrics(o.client);
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const shared = this.o.hpas.namespace(namespace).get(name);
    if (!shared) {
      this.recommendations.forget(key);
      return;
    }
    const hpa = structuredClone(shared) as HorizontalPodAutoscaler;
    hpa.apiVersion = 'autoscaling/v2';
    hpa.kind = 'HorizontalPodAutoscaler';
    const original = structuredClone(hpa.status);
    await this.autoscale(key, hpa, signal);
    await this.updateStatusIfNeeded(original, hpa, signal);
    return { requeueAfter: this.o.syncPeriodMs };
  }

  private event(hpa: HorizontalPodAutoscaler, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.o.recorder.event(hpa, type, reason, message);
  }

  private async autoscale(key: string, hpa: HorizontalPodAutoscaler, signal: AbortSignal): Promise<void> {
    const now = this.o.clock.now();
    const spec = hpa.spec!;
    const namespace = hpa.metadata?.namespace ?? '';
    let target: ScaleTarget;
    let scale: Scale;
    try {
      target = await this.resolveTarget(spec.scaleTargetRef, signal);
      scale = await this.o.client.resource<Scale>(target.gvr, { namespaced: target.namespaced }).namespace(namespace).getSubresource<Scale>(target.name, 'scale', { signal });
    } catch (err) {
      if (signal.aborted) throw err;
      const message = err instanceof Error ? err.message : String(err);
      this.event(hpa, 'Warning', 'FailedGetScale', message);
      setCondition(hpa, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${message}`, now);
      return;
    }
    setCondition(hpa, 'AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale", now);
    const currentReplicas = scale.spec?.replicas ?? 0;
    this.recommendations.recordInitial(key, currentReplicas);
    const minReplicas = spec.minReplicas ?? 1;
    let desiredReplicas = 0;
    let rescaleReason = '';
    let rescale = true;
    let metricStatuses: MetricStatus[] | undefined;
    if (currentReplicas === 0 && minReplicas !== 0) {
      desiredReplicas = 0;
      rescale = false;
      setCondition(hpa, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero', now);
    } else if (currentReplicas > spec.maxReplicas) {
      rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
      desiredReplicas = spec.maxReplicas;
    } else if (currentReplicas < minReplicas) {
      rescaleReason = 'Current number of replicas below Spec.MinReplicas';
      desiredReplicas = minReplicas;
    } else {
      const computed = await this.replicasForMetrics(hpa, scale, spec.metrics ?? [], now, signal);
      metricStatuses = computed.statuses;
      if (computed.replicas < 0) {
        hpa.status = { ...hpa.status!, currentReplicas, currentMetrics: metricStatuses };
        this.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', computed.error ?? '');
        return;
      }
      let rescaleMetric = '';
      if (computed.replicas > desiredReplicas) {
        desiredReplicas = computed.replicas;
        rescaleMetric = computed.metric;
      }
      if (desiredReplicas > currentReplicas) rescaleReason = `${rescaleMetric} above target`;
      if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
      const n = this.recommendations.normalize(key, { currentReplicas, desiredReplicas, minReplicas, maxReplicas: spec.maxReplicas, behavior: spec.behavior });
      setCondition(hpa, 'AbleToScale', n.ableToScale.status, n.ableToScale.reason, n.ableToScale.message, now);
      setCondition(hpa, 'ScalingLimited', n.scalingLimited.status, n.scalingLimited.reason, n.scalingLimited.message, now);
      desiredReplicas = n.replicas;
      rescale = desiredReplicas !== currentReplicas;
    }
    if (rescale) {
      try {
        const next: Scale = { ...scale, spec: { ...scale.spec, replicas: desiredReplicas } };
        await this.o.client.resource<Scale>(target.gvr, { namespaced: target.namespaced }).namespace(namespace).updateSubresource(target.name, 'scale', next, { signal });
      } catch (err) {
        if (signal.aborted) throw err;
        const message = err instanceof Error ? err.message : String(err);
        this.event(hpa, 'Warning', 'FailedRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${message}`);
        setCondition(hpa, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${message}`, now);
        hpa.status = { ...hpa.status!, currentReplicas, currentMetrics: metricStatuses };
        return;
      }
      setCondition(hpa, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desiredReplicas}`, now);
      this.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}`);
      this.recommendations.recordScale(key, spec.behavior, currentReplicas, desiredReplicas);
    } else {
      desiredReplicas = currentReplicas;
    }
    hpa.status = {
      currentReplicas,
      desiredReplicas,
      lastScaleTime: rescale ? rfc3339(now) : hpa.status?.lastScaleTime,
      currentMetrics: metricStatuses,
      conditions: hpa.status?.conditions,
    };
  }

  /** Upstream's computeReplicasForMetrics: the largest proposal; all metrics failing, or some failing on a scale down, is an error. */
  private async replicasForMetrics(hpa: HorizontalPodAutoscaler, scale: Scale, specs: MetricSpec[], now: number, signal: AbortSignal): Promise<{ replicas: number; metric: string; statuses?: MetricStatus[]; error?: string }> {
    const selector = this.selectorOf(hpa, scale.status?.selector, now);
    if (typeof selector === 'string') return { replicas: -1, metric: '', error: selector };
    const specReplicas = scale.spec?.replicas ?? 0;
    const statuses: MetricStatus[] = specs.map(() => ({ type: '' }) as unknown as MetricStatus);
    let replicas = 0;
    let metric = '';
    let invalid = 0;
    let firstError: MetricError | undefined;
    for (const [i, spec] of specs.entries()) {
      try {
        const p = await metricReplicas(spec, {
          podMetrics: this.podMetrics,
          namespace: hpa.metadata?.namespace ?? '',
          selector: scale.status?.selector ?? '',
          parsed: selector,
          specReplicas,
          pods: () => this.o.pods.namespace(hpa.metadata?.namespace ?? '').list(),
          now,
          options: this.o,
          signal,
        });
        statuses[i] = p.status;
        if (replicas === 0 || p.replicas > replicas) [replicas, metric] = [p.replicas, p.name];
      } catch (err) {
        if (!(err instanceof MetricError)) throw err;
        this.event(hpa, 'Warning', err.reason, err.detail);
        firstError ??= err;
        invalid++;
      }
    }
    if (firstError && (invalid >= specs.length || replicas < specReplicas)) {
      setCondition(hpa, 'ScalingActive', 'False', firstError.reason, `the HPA was unable to compute the replica count: ${firstError.detail}`, now);
      return { replicas: -1, metric: '', statuses, error: `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError.message}` };
    }
    setCondition(hpa, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${metric}`, now);
    return { replicas, metric, statuses };
  }

  /** The scale's selector parsed, or the error (already an event and a condition). */
  private selectorOf(hpa: HorizontalPodAutoscaler, selector: string | undefined, now: number): Selector | string {
    if (!selector) {
      this.event(hpa, 'Warning', 'SelectorRequired', 'selector is required');
      setCondition(hpa, 'ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector", now);
      return 'selector is required';
    }
    try {
      return parseSelector(selector);
    } catch (err) {
      const message = `couldn't convert selector into a corresponding internal selector object: ${err instanceof Error ? err.message : String(err)}`;
      this.event(hpa, 'Warning', 'InvalidSelector', message);
      setCondition(hpa, 'ScalingActive', 'False', 'InvalidSelector', message, now);
      return message;
    }
  }

  /** The resource serving the target's kind: built in, or a custom resource found through discovery. */
  private async resolveTarget(ref: { apiVersion?: string; kind: string; name: string }, signal: AbortSignal): Promise<ScaleTarget> {
    const apiVersion = ref.apiVersion ?? '';
    if (apiVersion.split('/').length > 2) throw new ScaleTargetError(`unexpected GroupVersion string: ${apiVersion}`);
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const info = await this.kinds.resolve(apiVersion, ref.kind, signal);
    if (!info) throw new ScaleTargetError(`no matches for kind "${ref.kind}" in group "${group}"`);
    return { gvr: { group: info.group, version: info.version, resource: info.resource }, namespaced: info.namespaced, name: ref.name };
  }

  /** Writes the status when it changed; a conflict (the spec moved meanwhile) retries once on the latest object. */
  private async updateStatusIfNeeded(original: HorizontalPodAutoscaler['status'], hpa: HorizontalPodAutoscaler, signal: AbortSignal): Promise<void> {
    if (semanticEqual(original, hpa.status)) return;
    const client = this.o.client.resource<HorizontalPodAutoscaler>(HORIZONTAL_POD_AUTOSCALERS).namespace(hpa.metadata?.namespace ?? '');
    try {
      await client.updateStatus(hpa, { signal });
    } catch (err) {
      if (isNotFound(err)) return;
      if (!isConflict(err)) {
        this.event(hpa, 'Warning', 'FailedUpdateStatus', err instanceof Error ? err.message : String(err));
        throw err;
      }
      try {
        const latest = await client.get(hpa.metadata?.name ?? '', { signal });
        await client.updateStatus({ ...latest, status: hpa.status }, { signal });
      } catch (again) {
        if (isNotFound(again) || isConflict(again)) return;
        throw again;
      }
    }
  }
}
