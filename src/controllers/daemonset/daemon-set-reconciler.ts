import type { ControllerRevision, DaemonSet, DaemonSetStatus } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import type { Client } from '../../client/rest/client.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import { labelSelectorFromObject } from '../../machinery/labels/index.js';
import { claimObjects } from '../claim-objects.js';
import { newControllerRef } from '../controller-ref.js';
import { isPodAvailable, isPodReady } from '../pod-readiness.js';
import { CONTROLLER_REVISION_HASH_LABEL, hashOfRevision, revisionsToTruncate } from '../history/controller-revision.js';
import type { PodExpectations } from '../history/pod-expectations.js';
import { cachedPodState, isPodTerminating } from '../history/pod-state.js';
import { stableStringify } from '../history/revision-hash.js';
import { updateStatusFresh } from '../history/update-status.js';
import { ensureUpdateRevision } from '../history/revision-store.js';
import { slowStartBatch } from '../slow-start-batch.js';
import { daemonPodTargetNode, newDaemonPod, POD_TEMPLATE_GENERATION_LABEL, withDaemonTolerations, withNodeNameAffinity } from './daemon-pod.js';
import { planDaemonSet, scaledValue, type DaemonNode } from './daemon-set-plan.js';
import { nodeShouldRunDaemonPod } from './node-eligibility.js';
import { CONTROLLER_REVISIONS, DAEMON_SETS, PODS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

export interface DaemonSetReconcilerOptions {
  client: Client;
  daemonSets: Lister<DaemonSet>;
  pods: Lister<Pod>;
  nodes: Lister<Node>;
  revisions: Lister<ControllerRevision>;
  expectations: PodExpectations;
  recorder: EventRecorder;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

/**
 * The DaemonSet controller: one pod per eligible node (node selector,
 * required affinity, taints against the template's tolerations plus the
 * daemon defaults), pinned to its node by node affinity for the scheduler to
 * bind; rolling updates through ControllerRevisions.
 */
export class DaemonSetReconciler implements Reconciler {
  private readonly clock: Clock;

  constructor(private readonly o: DaemonSetReconcilerOptions) {
    this.clock = o.clock ?? realClock;
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const cached = this.o.daemonSets.namespace(namespace).get(name);
    if (!cached) {
      this.o.expectations.forget(key);
      return;
    }
    if (cached.metadata?.deletionTimestamp) return;
    const podLister = this.o.pods.namespace(namespace);
    if (!this.o.expectations.satisfied(key, (n) => cachedPodState(podLister.get(n)))) return;
    const ds = structuredClone(cached) as DaemonSet;
    const podClient = this.o.client.resource<Pod>(PODS).namespace(namespace);
    const pods = await claimObjects(podLister.list(), {
      owner: ds,
      ownerApiVersion: 'apps/v1',
      ownerKind: 'DaemonSet',
      selector: labelSelectorFromObject(ds.spec?.selector),
      client: podClient,
      recheckOwner: () => this.o.client.resource<DaemonSet>(DAEMON_SETS).namespace(namespace).get(name),
    });
    const revisionClient = this.o.client.resource<ControllerRevision>(CONTROLLER_REVISIONS).namespace(namespace);
    const owned = this.o.revisions.namespace(namespace).list().filter((r) => r.metadata?.ownerReferences?.some((ref) => ref.uid === ds.metadata?.uid));
    const update = await ensureUpdateRevision(revisionClient, ds, newControllerRef(ds, 'apps/v1', 'DaemonSet'), owned, ds.status?.collisionCount ?? 0);
    const hash = hashOfRevision(update.revision);
    const generation = String(ds.metadata?.generation ?? 1);
    const isUpdated = (p: Pod): boolean => p.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash || p.metadata?.labels?.[POD_TEMPLATE_GENERATION_LABEL] === generation;

    const byNode = new Map<string, Pod[]>();
    for (const pod of pods) {
      const node = daemonPodTargetNode(pod) ?? '';
      byNode.set(node, [...(byNode.get(node) ?? []), pod]);
    }
    const template = withDaemonTolerations(ds.spec?.template?.spec ?? { containers: [] });
    const nodes: DaemonNode[] = this.o.nodes.list().map((node) => {
      const nodeName = node.metadata?.name ?? '';
      const nodePods = byNode.get(nodeName) ?? [];
      byNode.delete(nodeName);
      return { name: nodeName, fit: nodeShouldRunDaemonPod(node, withNodeNameAffinity(template, nodeName)), pods: nodePods };
    });
    const desired = nodes.filter((n) => n.fit.shouldRun).length;
    const ru = ds.spec?.updateStrategy?.rollingUpdate;
    const maxSurge = scaledValue(ru?.maxSurge, desired, 0);
    let maxUnavailable = scaledValue(ru?.maxUnavailable, desired, 1);
    if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1; // upstream: the rollout must make progress
    const now = this.clock.now();
    const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
    const plan = planDaemonSet({
      nodes,
      orphanedPods: [...byNode.values()].flat(),
      isUpdated,
      strategy: ds.spec?.updateStrategy?.type === 'OnDelete' ? 'OnDelete' : 'RollingUpdate',
      maxSurge,
      maxUnavailable,
      minReadySeconds,
      now,
    });
    await this.deletePods(key, ds, plan.delete);
    await this.createPods(key, ds, plan.create, hash);

    const status = this.status(ds, nodes, isUpdated, update.collisionCount, minReadySeconds, now);
    const live = new Set([update.revision.metadata?.name ?? '']);
    for (const pod of pods) {
      const rev = update.revisions.find((r) => hashOfRevision(r) === pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]);
      if (rev) live.add(rev.metadata?.name ?? '');
    }
    for (const rev of revisionsToTruncate(update.revisions, live, ds.spec?.revisionHistoryLimit ?? 10)) {
      await revisionClient.delete(rev.metadata?.name ?? '').catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
    if (stableStringify(status) !== stableStringify(ds.status ?? {})) {
      await updateStatusFresh(this.o.client.resource<DaemonSet>(DAEMON_SETS).namespace(namespace), ds, status);
    }
    if (minReadySeconds > 0 && status.numberAvailable !== status.numberReady) return { requeueAfter: minReadySeconds * 1000 };
  }

  private status(ds: DaemonSet, nodes: DaemonNode[], isUpdated: (p: Pod) => boolean, collisionCount: number, minReadySeconds: number, now: number): DaemonSetStatus {
    const status: DaemonSetStatus = {
      observedGeneration: ds.metadata?.generation,
      desiredNumberScheduled: 0,
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      numberReady: 0,
      numberAvailable: 0,
      updatedNumberScheduled: 0,
      numberUnavailable: 0,
      collisionCount,
    };
    for (const node of nodes) {
      const live = node.pods.filter((p) => !isPodTerminating(p));
      if (!node.fit.shouldRun) {
        if (live.length > 0) status.numberMisscheduled++;
        continue;
      }
      status.desiredNumberScheduled++;
      if (live.length === 0) continue;
      status.currentNumberScheduled++;
      if (live.some(isPodReady)) status.numberReady!++;
      if (live.some((p) => isPodAvailable(p, minReadySeconds, now))) status.numberAvailable!++;
      if (live.some(isUpdated)) status.updatedNumberScheduled!++;
    }
    status.numberUnavailable = status.desiredNumberScheduled - status.numberAvailable!;
    if (status.collisionCount === 0) delete status.collisionCount;
    if (ds.status?.conditions) status.conditions = ds.status.conditions;
    return status;
  }

  private async createPods(key: string, ds: DaemonSet, nodeNames: string[], hash: string): Promise<void> {
    const client = this.o.client.resource<Pod>(PODS).namespace(ds.metadata?.namespace ?? '');
    const { error } = await slowStartBatch(nodeNames.length, 1, async (i) => {
      try {
        const pod = await client.create(newDaemonPod(ds, nodeNames[i], hash));
        this.o.expectations.expectCreate(key, pod.metadata?.name ?? '');
        this.o.recorder.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata?.name}`);
      } catch (err) {
        this.o.recorder.event(ds, 'Warning', 'FailedCreate', `Error creating: ${String((err as Error).message ?? err)}`);
        throw err;
      }
    });
    if (error !== undefined) throw error;
  }

  private async deletePods(key: string, ds: DaemonSet, pods: Pod[]): Promise<void> {
    const client = this.o.client.resource<Pod>(PODS).namespace(ds.metadata?.namespace ?? '');
    await Promise.all(
      pods.map(async (p) => {
        const name = p.metadata?.name ?? '';
        this.o.expectations.expectDelete(key, name);
        try {
          await client.delete(name, { preconditions: { uid: p.metadata?.uid } });
          this.o.recorder.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
        } catch (err) {
          this.o.expectations.forget(key, name);
          if (isNotFound(err)) return;
          this.o.recorder.event(ds, 'Warning', 'FailedDelete', `Error deleting: ${String((err as Error).message ?? err)}`);
          throw err;
        }
      }),
    );
  }
}
