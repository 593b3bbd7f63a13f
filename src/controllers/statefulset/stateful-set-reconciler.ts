import type { ControllerRevision, StatefulSet, StatefulSetStatus } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import type { Client } from '../../client/rest/client.js';
import { isAlreadyExists, isNotFound } from '../../client/rest/error-predicates.js';
import { labelSelectorFromObject } from '../../machinery/labels/index.js';
import { claimObjects } from '../claim-objects.js';
import { newControllerRef } from '../controller-ref.js';
import { isPodAvailable } from '../pod-readiness.js';
import { revisionsToTruncate, templateOfRevision } from '../history/controller-revision.js';
import { isPodRunningAndReady, isPodTerminating } from '../history/pod-state.js';
import { stableStringify } from '../history/revision-hash.js';
import { updateStatusFresh } from '../history/update-status.js';
import { ensureUpdateRevision } from '../history/revision-store.js';
import { newPersistentVolumeClaims, newStatefulSetPod, podOrdinal, podRevision } from './stateful-pod.js';
import { planStatefulSet, type StatefulSetAction } from './stateful-set-plan.js';
import { CONTROLLER_REVISIONS, PERSISTENT_VOLUME_CLAIMS, PODS, STATEFUL_SETS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

export interface StatefulSetReconcilerOptions {
  client: Client;
  statefulSets: Lister<StatefulSet>;
  pods: Lister<Pod>;
  revisions: Lister<ControllerRevision>;
  recorder: EventRecorder;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

/**
 * The StatefulSet controller: stable pod identities `<set>-<ordinal>` with
 * their claims, ordered or parallel management, and rolling updates through
 * ControllerRevisions (see planStatefulSet for the order of steps).
 */
export class StatefulSetReconciler implements Reconciler {
  private readonly clock: Clock;

  constructor(private readonly o: StatefulSetReconcilerOptions) {
    this.clock = o.clock ?? realClock;
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const cached = this.o.statefulSets.namespace(namespace).get(name);
    if (!cached || cached.metadata?.deletionTimestamp) return;
    const set = structuredClone(cached) as StatefulSet;
    const selector = labelSelectorFromObject(set.spec?.selector);
    const podClient = this.o.client.resource<Pod>(PODS).namespace(namespace);
    const pods = await claimObjects(this.o.pods.namespace(namespace).list(), {
      owner: set,
      ownerApiVersion: 'apps/v1',
      ownerKind: 'StatefulSet',
      selector,
      client: podClient,
      recheckOwner: () => this.o.client.resource<StatefulSet>(STATEFUL_SETS).namespace(namespace).get(name),
    });
    const revisionClient = this.o.client.resource<ControllerRevision>(CONTROLLER_REVISIONS).namespace(namespace);
    const owned = this.o.revisions.namespace(namespace).list().filter((r) => r.metadata?.ownerReferences?.some((ref) => ref.uid === set.metadata?.uid));
    const ownerRef = newControllerRef(set, 'apps/v1', 'StatefulSet');
    const update = await ensureUpdateRevision(revisionClient, set, ownerRef, owned, set.status?.collisionCount ?? 0);
    const updateRevision = update.revision;
    const currentRevision = update.revisions.find((r) => r.metadata?.name === set.status?.currentRevision) ?? updateRevision;

    const byOrdinal = new Map<number, Pod>();
    for (const pod of pods) {
      const ord = podOrdinal(set, pod);
      if (ord !== undefined) byOrdinal.set(ord, pod);
    }
    const strategy = set.spec?.updateStrategy;
    const now = this.clock.now();
    const actions = planStatefulSet({
      replicas: set.spec?.replicas ?? 1,
      start: set.spec?.ordinals?.start ?? 0,
      ordered: (set.spec?.podManagementPolicy ?? 'OrderedReady') === 'OrderedReady',
      updateStrategy: strategy?.type === 'OnDelete' ? 'OnDelete' : 'RollingUpdate',
      partition: strategy?.rollingUpdate?.partition ?? 0,
      minReadySeconds: set.spec?.minReadySeconds ?? 0,
      now,
      pods: byOrdinal,
      currentRevision: currentRevision.metadata?.name ?? '',
      updateRevision: updateRevision.metadata?.name ?? '',
      revisionOf: podRevision,
    });
    const changed = await Promise.all(actions.map((a) => this.apply(set, a, currentRevision, updateRevision)));
    for (const c of changed) {
      if (c?.created) byOrdinal.set(podOrdinal(set, c.created)!, c.created);
      if (c?.deleted) byOrdinal.delete(podOrdinal(set, c.deleted)!);
    }

    const status = this.status(set, [...byOrdinal.values()], currentRevision, updateRevision, update.collisionCount, now);
    const live = new Set([status.currentRevision ?? '', status.updateRevision ?? '', ...pods.map((p) => podRevision(p) ?? '')]);
    for (const rev of revisionsToTruncate(update.revisions, live, set.spec?.revisionHistoryLimit ?? 10)) {
      await revisionClient.delete(rev.metadata?.name ?? '').catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
    if (stableStringify(status) !== stableStringify(set.status ?? {})) {
      await updateStatusFresh(this.o.client.resource<StatefulSet>(STATEFUL_SETS).namespace(namespace), set, status);
    }
    // minReadySeconds: look again when the youngest ready pod becomes available.
    const minReady = set.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && status.availableReplicas !== status.readyReplicas) return { requeueAfter: minReady * 1000 };
  }

  private async apply(set: StatefulSet, action: StatefulSetAction, current: ControllerRevision, update: ControllerRevision): Promise<{ created?: Pod; deleted?: Pod } | undefined> {
    const ns = set.metadata?.namespace ?? '';
    const setName = set.metadata?.name;
    if (action.type === 'create') {
      const revision = action.revision === 'current' ? current : update;
      const pod = newStatefulSetPod(set, templateOfRevision(revision), action.ordinal, revision.metadata?.name ?? '');
      await this.createClaims(set, action.ordinal, pod.metadata?.name ?? '');
      try {
        const created = await this.o.client.resource<Pod>(PODS).namespace(ns).create(pod);
        this.o.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Pod ${pod.metadata?.name} in StatefulSet ${setName} successful`);
        return { created };
      } catch (err) {
        if (isAlreadyExists(err)) return undefined; // our cache lags; the informer will bring it
        this.o.recorder.event(set, 'Warning', 'FailedCreate', `create Pod ${pod.metadata?.name} in StatefulSet ${setName} failed error: ${String((err as Error).message ?? err)}`);
        throw err;
      }
    }
    const name = action.pod.metadata?.name ?? '';
    if (action.why === 'condemned' && set.spec?.persistentVolumeClaimRetentionPolicy?.whenScaled === 'Delete') await this.handOverClaims(set, action.ordinal, action.pod);
    try {
      // The uid precondition keeps a stale decision from deleting a newer pod of the same name.
      await this.o.client.resource<Pod>(PODS).namespace(ns).delete(name, { preconditions: { uid: action.pod.metadata?.uid } });
      this.o.recorder.event(set, 'Normal', 'SuccessfulDelete', `delete Pod ${name} in StatefulSet ${setName} successful`);
      return { deleted: action.pod };
    } catch (err) {
      if (isNotFound(err)) return { deleted: action.pod };
      this.o.recorder.event(set, 'Warning', 'FailedDelete', `delete Pod ${name} in StatefulSet ${setName} failed error: ${String((err as Error).message ?? err)}`);
      throw err;
    }
  }

  private async createClaims(set: StatefulSet, ordinal: number, podName: string): Promise<void> {
    const client = this.o.client.resource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS).namespace(set.metadata?.namespace ?? '');
    for (const claim of newPersistentVolumeClaims(set, ordinal)) {
      try {
        await client.create(claim);
        this.o.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Claim ${claim.metadata?.name} Pod ${podName} in StatefulSet ${set.metadata?.name} success`);
      } catch (err) {
        if (isAlreadyExists(err)) continue; // claims outlive pods: reuse it
        this.o.recorder.event(set, 'Warning', 'FailedCreate', `create Claim ${claim.metadata?.name} for Pod ${podName} in StatefulSet ${set.metadata?.name} failed error: ${String((err as Error).message ?? err)}`);
        throw err;
      }
    }
  }

  /** whenScaled=Delete: the condemned pod becomes its claims' owner, so the garbage collector removes them after it. */
  private async handOverClaims(set: StatefulSet, ordinal: number, pod: Pod): Promise<void> {
    const client = this.o.client.resource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS).namespace(set.metadata?.namespace ?? '');
    const ref = { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' };
    for (const claim of newPersistentVolumeClaims(set, ordinal)) {
      await client.patch(claim.metadata?.name ?? '', { metadata: { ownerReferences: [ref] } }, 'merge').catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  }

  private status(set: StatefulSet, pods: Pod[], current: ControllerRevision, update: ControllerRevision, collisionCount: number, now: number): StatefulSetStatus {
    const minReady = set.spec?.minReadySeconds ?? 0;
    const currentName = current.metadata?.name ?? '';
    const updateName = update.metadata?.name ?? '';
    const live = pods.filter((p) => !isPodTerminating(p));
    const status: StatefulSetStatus = {
      observedGeneration: set.metadata?.generation,
      replicas: pods.length,
      readyReplicas: pods.filter(isPodRunningAndReady).length,
      availableReplicas: pods.filter((p) => isPodRunningAndReady(p) && isPodAvailable(p, minReady, now)).length,
      currentReplicas: live.filter((p) => podRevision(p) === currentName).length,
      updatedReplicas: live.filter((p) => podRevision(p) === updateName).length,
      currentRevision: currentName,
      updateRevision: updateName,
      collisionCount,
      conditions: set.status?.conditions,
    };
    if (status.conditions === undefined) delete status.conditions;
    // The rollout is complete once every replica runs the update revision and is ready.
    const replicas = set.spec?.replicas ?? 1;
    if (set.spec?.updateStrategy?.type !== 'OnDelete' && status.updatedReplicas === replicas && status.readyReplicas === replicas && status.replicas === replicas) {
      status.currentRevision = updateName;
      status.currentReplicas = status.updatedReplicas;
    }
    return status;
  }
}
