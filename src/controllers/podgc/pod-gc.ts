import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Client } from '../../client/rest/client.js';
import { isConflict, isNotFound } from '../../client/rest/error-predicates.js';
import type { Logger } from '../../machinery/logger.js';
import { formatTime } from '../../machinery/time.js';
import { JOBS, NODES, PODS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
const OUT_OF_SERVICE_TAINT = 'node.kubernetes.io/out-of-service';

export interface PodGCOptions {
  client: Client;
  pods: Lister<Pod>;
  nodes: Lister<Node>;
  jobs: Lister<Job>;
  logger: Logger;
  /** Terminated pods kept (0: no limit). */
  terminatedPodThreshold: number;
  /** How long a node must be missing before its pods count as orphans (upstream: 40 s). */
  quarantineMs?: number;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

function isTerminated(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/**
 * Upstream's pod garbage collector, one pass at a time: deletes the oldest
 * terminated pods beyond the threshold, pods bound to nodes that no longer
 * exist, terminating pods that were never scheduled and terminating pods on
 * out-of-service nodes, and releases the Job tracking finalizer of pods whose
 * Job is gone.
 */
export class PodGC {
  private readonly clock: Clock;
  private readonly missingSince = new Map<string, number>();

  constructor(private readonly o: PodGCOptions) {
    this.clock = o.clock ?? realClock;
  }

  async gc(signal?: AbortSignal): Promise<void> {
    const pods = this.o.pods.list();
    await this.gcTerminated(pods, signal);
    await this.gcOrphaned(pods, signal);
    await this.gcUnscheduledTerminating(pods, signal);
    await this.gcTerminatingOutOfService(pods, signal);
    await this.releaseOrphanedJobPods(pods, signal);
  }

  private async gcTerminated(pods: Pod[], signal?: AbortSignal): Promise<void> {
    if (this.o.terminatedPodThreshold <= 0) return;
    const terminated = pods.filter(isTerminated);
    const excess = terminated.length - this.o.terminatedPodThreshold;
    if (excess <= 0) return;
    // evicted pods first, then the oldest (upstream's byEvictionAndCreationTimestamp)
    const evicted = (p: Pod): number => (p.status?.reason === 'Evicted' ? 0 : 1);
    const created = (p: Pod): number => Date.parse(p.metadata?.creationTimestamp ?? '');
    const key = (p: Pod): string => `${p.metadata?.namespace}/${p.metadata?.name}`;
    // creation times have whole seconds: the key breaks ties so every pass picks the same pods
    terminated.sort((a, b) => evicted(a) - evicted(b) || created(a) - created(b) || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    this.o.logger.info('garbage collecting terminated pods', { count: excess, threshold: this.o.terminatedPodThreshold });
    for (const pod of terminated.slice(0, excess)) await this.forceDelete(pod, undefined, signal);
  }

  private async gcOrphaned(pods: Pod[], signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    const quarantine = this.o.quarantineMs ?? 40_000;
    const missing = new Set<string>();
    for (const pod of pods) {
      const node = pod.spec?.nodeName;
      if (node && !this.o.nodes.get(node)) missing.add(node);
    }
    for (const name of this.missingSince.keys()) if (!missing.has(name)) this.missingSince.delete(name);
    const gone = new Set<string>();
    for (const name of missing) {
      const since = this.missingSince.get(name) ?? now;
      this.missingSince.set(name, since);
      if (now - since < quarantine) continue;
      // the cache may lag: only a node the API server does not know is gone
      try {
        await this.o.client.resource<Node>(NODES).get(name, { signal });
      } catch (err) {
        if (isNotFound(err)) gone.add(name);
        else throw err;
      }
    }
    for (const pod of pods) {
      if (!gone.has(pod.spec?.nodeName ?? '')) continue;
      this.o.logger.info('deleting a pod whose node is gone', { pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, node: pod.spec?.nodeName });
      await this.forceDelete(pod, 'PodGC: node no longer exists', signal);
    }
  }

  private async gcUnscheduledTerminating(pods: Pod[], signal?: AbortSignal): Promise<void> {
    for (const pod of pods) if (pod.metadata?.deletionTimestamp && !pod.spec?.nodeName) await this.forceDelete(pod, undefined, signal);
  }

  private async gcTerminatingOutOfService(pods: Pod[], signal?: AbortSignal): Promise<void> {
    for (const pod of pods) {
      if (!pod.metadata?.deletionTimestamp || !pod.spec?.nodeName) continue;
      const node = this.o.nodes.get(pod.spec.nodeName);
      const ready = node?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
      if (!node || ready === 'True' || !(node.spec?.taints ?? []).some((t) => t.key === OUT_OF_SERVICE_TAINT && t.effect === 'NoExecute')) continue;
      await this.forceDelete(pod, 'PodGC: node is out of service', signal);
    }
  }

  /** Pods held by the Job tracking finalizer of a Job that no longer exists (or without a controlling Job). */
  private async releaseOrphanedJobPods(pods: Pod[], signal?: AbortSignal): Promise<void> {
    for (const pod of pods) {
      if (!pod.metadata?.finalizers?.includes(JOB_TRACKING_FINALIZER)) continue;
      if (!pod.metadata.deletionTimestamp && !isTerminated(pod)) continue;
      const ref = pod.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'Job');
      const ns = pod.metadata.namespace ?? '';
      if (ref) {
        const job = this.o.jobs.namespace(ns).get(ref.name);
        if (job && job.metadata?.uid === ref.uid) continue;
        try {
          const live = await this.o.client.resource<Job>(JOBS).namespace(ns).get(ref.name, { signal });
          if (live.metadata?.uid === ref.uid) continue;
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      const finalizers = pod.metadata.finalizers.filter((f) => f !== JOB_TRACKING_FINALIZER);
      try {
        await this.o.client
          .resource<Pod>(PODS)
          .namespace(ns)
          .patch(pod.metadata.name ?? '', { metadata: { finalizers, resourceVersion: pod.metadata.resourceVersion } }, 'merge', { signal });
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
    }
  }

  /** Marks a running pod Failed (with a DisruptionTarget condition when a message is given), then deletes it at once. */
  private async forceDelete(pod: Pod, message: string | undefined, signal?: AbortSignal): Promise<void> {
    const pods = this.o.client.resource<Pod>(PODS).namespace(pod.metadata?.namespace ?? '');
    try {
      if (!isTerminated(pod)) {
        const clone = structuredClone(pod) as Pod;
        const conditions = [...(clone.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget')];
        if (message) conditions.push({ type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message, lastTransitionTime: formatTime(new Date(this.clock.now())) });
        await pods.updateStatus({ ...clone, status: { ...clone.status, phase: 'Failed', conditions } }, { signal });
      }
      await pods.delete(pod.metadata?.name ?? '', { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata?.uid }, signal });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
}
