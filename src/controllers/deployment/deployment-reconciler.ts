import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Deployment, DeploymentStatus, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Client } from '../../client/rest/client.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import { TerminalError } from '../../client/controller/reconciler.js';
import { isAlreadyExists, isNotFound } from '../../client/rest/error-predicates.js';
import { labelSelectorFromObject, type Selector } from '../../machinery/labels/index.js';
import { claimObjects } from '../claim-objects.js';
import { semanticEqual } from '../semantic-equal.js';
import { controllerRefOf, newControllerRef } from '../controller-ref.js';
import { maxSurge, maxUnavailable } from './fenceposts.js';
import { computeHash, equalIgnoreHash, POD_TEMPLATE_HASH_LABEL } from './pod-template-hash.js';
import { scaleDeployment } from './proportional-scale.js';
import { activeReplicaSets, actualReplicas, availableReplicas, oldestFirst, readyReplicas, specReplicas } from './replica-set-counts.js';
import { maxRevision, desiredReplicasOf, REVISION_ANNOTATION, revisionOf, setNewReplicaSetAnnotations, setReplicasAnnotations } from './revision.js';
import { newReplicaSetReplicas, reconcileNewReplicaSet, reconcileOldReplicaSets } from './rolling-update.js';
import { AVAILABLE, deploymentComplete, deploymentProgressing, deploymentTimedOut, getCondition, hasProgressDeadline, newCondition, PROGRESSING, Reason, removeCondition, setCondition } from './deployment-conditions.js';
import { DEPLOYMENTS, REPLICA_SETS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

export interface DeploymentReconcilerOptions {
  client: Client;
  deployments: Lister<Deployment>;
  replicaSets: Lister<ReplicaSet>;
  pods: Lister<Pod>;
  recorder: EventRecorder;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

/**
 * Rolls a Deployment's pod template out through ReplicaSets, one per
 * template: creates the new one, moves replicas from old to new within
 * maxSurge/maxUnavailable (or all at once for Recreate), keeps the revision
 * history, and reports status and the Progressing/Available conditions.
 */
export class DeploymentReconciler implements Reconciler {
  private readonly clock: Clock;

  constructor(private readonly o: DeploymentReconcilerOptions) {
    this.clock = o.clock ?? realClock;
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const cached = this.o.deployments.namespace(namespace).get(name);
    if (!cached) return;
    const d = structuredClone(cached) as Deployment;
    let selector: Selector;
    try {
      selector = labelSelectorFromObject(d.spec?.selector);
    } catch (err) {
      throw new TerminalError(`invalid selector of Deployment ${key}`, { cause: err });
    }
    if (selector.empty()) {
      this.o.recorder.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((d.status?.observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) await this.writeStatus(d, { ...d.status, observedGeneration: d.metadata?.generation }, signal);
      return;
    }
    const rsClient = this.o.client.resource<ReplicaSet>(REPLICA_SETS).namespace(namespace);
    const claimed = await claimObjects(this.o.replicaSets.namespace(namespace).list(), {
      owner: d,
      ownerApiVersion: 'apps/v1',
      ownerKind: 'Deployment',
      selector,
      client: rsClient,
      recheckOwner: () => this.o.client.resource<Deployment>(DEPLOYMENTS).namespace(namespace).get(name, { signal }),
    });
    const rsList = claimed.map((rs) => structuredClone(rs) as ReplicaSet);
    const sync = new DeploymentSync(this.o, d, rsList, this.clock.now(), signal);
    if (d.metadata?.deletionTimestamp) return sync.syncStatusOnly();
    await sync.checkPausedConditions();
    if (d.spec?.paused || sync.isScalingEvent()) return sync.scaleAndCleanUp();
    return d.spec?.strategy?.type === 'Recreate' ? sync.rolloutRecreate() : sync.rolloutRolling();
  }

  private async writeStatus(d: Deployment, status: DeploymentStatus, signal: AbortSignal): Promise<void> {
    await this.o.client.resource<Deployment>(DEPLOYMENTS).namespace(d.metadata?.namespace ?? '').updateStatus({ ...d, status }, { signal });
  }
}

/** One sync of one Deployment over mutable copies of its ReplicaSets. */
class DeploymentSync {
  private readonly rsClient;
  private readonly deployClient;

  constructor(
    private readonly o: DeploymentReconcilerOptions,
    private d: Deployment,
    private readonly rsList: ReplicaSet[],
    private readonly now: number,
    private readonly signal: AbortSignal,
  ) {
    const ns = d.metadata?.namespace ?? '';
    this.rsClient = o.client.resource<ReplicaSet>(REPLICA_SETS).namespace(ns);
    this.deployClient = o.client.resource<Deployment>(DEPLOYMENTS).namespace(ns);
  }

  private replicas(): number {
    return this.d.spec?.replicas ?? 1;
  }

  /** The ReplicaSet running the current template (the oldest, should there be several) and the rest. */
  private split(): { newRS?: ReplicaSet; oldRSs: ReplicaSet[] } {
    const newRS = [...this.rsList].sort(oldestFirst).find((rs) => equalIgnoreHash(rs.spec?.template, this.d.spec?.template));
    return { newRS, oldRSs: this.rsList.filter((rs) => rs !== newRS) };
  }

  isScalingEvent(): boolean {
    const { newRS, oldRSs } = this.split();
    return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
      const desired = desiredReplicasOf(rs);
      return desired !== undefined && desired !== this.replicas();
    });
  }

  async checkPausedConditions(): Promise<void> {
    if (!hasProgressDeadline(this.d)) return;
    const cond = getCondition(this.d.status, PROGRESSING);
    if (cond?.reason === Reason.ProgressDeadlineExceeded) return;
    const pausedCond = cond?.reason === Reason.DeploymentPaused;
    const status = structuredClone(this.d.status ?? {});
    if (this.d.spec?.paused && !pausedCond) setCondition(status, newCondition(PROGRESSING, 'Unknown', Reason.DeploymentPaused, 'Deployment is paused', this.now));
    else if (!this.d.spec?.paused && pausedCond) setCondition(status, newCondition(PROGRESSING, 'Unknown', Reason.DeploymentResumed, 'Deployment is resumed', this.now));
    else return;
    this.d = await this.deployClient.updateStatus({ ...this.d, status }, { signal: this.signal });
  }

  /**
   * Finds or (when `create`) creates the ReplicaSet of the current template,
   * bringing its revision above every old one and copying the revision onto
   * the Deployment.
   */
  private async newAndOld(create: boolean): Promise<{ newRS?: ReplicaSet; oldRSs: ReplicaSet[] }> {
    const { newRS: existing, oldRSs } = this.split();
    const revision = maxRevision(oldRSs) + 1;
    let newRS = existing;
    if (existing) {
      const copy = structuredClone(existing) as ReplicaSet;
      const changed = setNewReplicaSetAnnotations(this.d, copy, revision, true);
      const minReadyChanged = (copy.spec?.minReadySeconds ?? 0) !== (this.d.spec?.minReadySeconds ?? 0);
      if (minReadyChanged) copy.spec = { ...copy.spec!, minReadySeconds: this.d.spec?.minReadySeconds };
      if (changed || minReadyChanged) Object.assign(existing, await this.rsClient.update(copy, { signal: this.signal }));
      if (hasProgressDeadline(this.d) && !getCondition(this.d.status, PROGRESSING)) {
        const status = structuredClone(this.d.status ?? {});
        setCondition(status, newCondition(PROGRESSING, 'True', Reason.FoundNewReplicaSet, `Found new replica set "${existing.metadata?.name}"`, this.now));
        this.d = await this.deployClient.updateStatus({ ...this.d, status }, { signal: this.signal });
      }
    } else if (create) {
      newRS = await this.createNewReplicaSet(oldRSs, revision);
    }
    if (newRS) await this.setDeploymentRevision(revisionOf(newRS));
    return { newRS, oldRSs };
  }

  private async createNewReplicaSet(oldRSs: ReplicaSet[], revision: number): Promise<ReplicaSet | undefined> {
    const d = this.d;
    const hash = computeHash(d.spec?.template, d.status?.collisionCount);
    const template = structuredClone(d.spec?.template ?? {});
    template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash } };
    const selector = structuredClone(d.spec?.selector ?? {});
    selector.matchLabels = { ...selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash };
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata?.name}-${hash}`,
        namespace: d.metadata?.namespace,
        labels: { ...template.metadata.labels },
        ownerReferences: [newControllerRef(d, 'apps/v1', 'Deployment')],
      },
      spec: { replicas: 0, minReadySeconds: d.spec?.minReadySeconds, selector, template },
    };
    rs.spec!.replicas = newReplicaSetReplicas(d, oldRSs, undefined);
    setNewReplicaSetAnnotations(d, rs, revision, false);
    let created: ReplicaSet;
    try {
      created = await this.rsClient.create(rs, { signal: this.signal });
    } catch (err) {
      if (isAlreadyExists(err)) {
        const other = await this.rsClient.get(rs.metadata!.name!, { signal: this.signal });
        // Ours with our template: the cache had not seen it yet.
        if (controllerRefOf(other)?.uid === d.metadata?.uid && equalIgnoreHash(other.spec?.template, d.spec?.template)) {
          this.rsList.push(other);
          return other;
        }
        // A hash collision: bump collisionCount so the next sync picks another name.
        const status = { ...structuredClone(d.status ?? {}), collisionCount: (d.status?.collisionCount ?? 0) + 1 };
        await this.deployClient.updateStatus({ ...d, status }, { signal: this.signal });
        throw err;
      }
      if (hasProgressDeadline(d)) {
        const status = structuredClone(d.status ?? {});
        const msg = `Failed to create new replica set "${rs.metadata?.name}": ${err instanceof Error ? err.message : String(err)}`;
        setCondition(status, newCondition(PROGRESSING, 'False', Reason.FailedReplicaSetCreate, msg, this.now));
        await this.deployClient.updateStatus({ ...d, status }, { signal: this.signal }).catch(() => undefined);
      }
      this.o.recorder.event(d, 'Warning', 'FailedCreate', `Failed to create new replica set "${rs.metadata?.name}": ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    const size = created.spec?.replicas ?? 0;
    if (size > 0) this.o.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata?.name} from 0 to ${size}`);
    if (hasProgressDeadline(d)) {
      const status = structuredClone(this.d.status ?? {});
      setCondition(status, newCondition(PROGRESSING, 'True', Reason.NewReplicaSetCreated, `Created new replica set "${created.metadata?.name}"`, this.now));
      this.d = await this.deployClient.updateStatus({ ...this.d, status }, { signal: this.signal });
    }
    this.rsList.push(created);
    return created;
  }

  private async setDeploymentRevision(revision: number): Promise<void> {
    if (revision <= 0 || this.d.metadata?.annotations?.[REVISION_ANNOTATION] === String(revision)) return;
    const next = structuredClone(this.d);
    next.metadata = { ...next.metadata, annotations: { ...next.metadata?.annotations, [REVISION_ANNOTATION]: String(revision) } };
    this.d = await this.deployClient.update(next, { signal: this.signal });
  }

  /** Scales a ReplicaSet (mutating the copy in hand) and records the event; true when it changed size. */
  scale = async (rs: ReplicaSet, size: number): Promise<boolean> => {
    const from = rs.spec?.replicas ?? 0;
    const copy = structuredClone(rs) as ReplicaSet;
    const annotationsChanged = setReplicasAnnotations(copy, this.replicas(), this.replicas() + maxSurge(this.d));
    if (from === size && !annotationsChanged) return false;
    copy.spec = { ...copy.spec!, replicas: size };
    Object.assign(rs, await this.rsClient.update(copy, { signal: this.signal }));
    if (from !== size) {
      this.o.recorder.event(this.d, 'Normal', 'ScalingReplicaSet', `Scaled ${size > from ? 'up' : 'down'} replica set ${rs.metadata?.name} from ${from} to ${size}`);
    }
    return from !== size;
  };

  async syncStatusOnly(): Promise<ReconcileResult | void> {
    const { newRS, oldRSs } = await this.newAndOld(false);
    await this.syncDeploymentStatus([...oldRSs, ...(newRS ? [newRS] : [])], newRS);
  }

  /** A paused or scaled Deployment: resize proportionally, no rollout. */
  async scaleAndCleanUp(): Promise<ReconcileResult | void> {
    const { newRS, oldRSs } = await this.newAndOld(false);
    await scaleDeployment(this.d, newRS, oldRSs, this.scale);
    if (this.d.spec?.paused) await this.cleanup(oldRSs);
    await this.syncDeploymentStatus([...oldRSs, ...(newRS ? [newRS] : [])], newRS);
  }

  async rolloutRolling(): Promise<ReconcileResult | void> {
    const { newRS, oldRSs } = await this.newAndOld(true);
    const all = [...oldRSs, ...(newRS ? [newRS] : [])];
    if (newRS && (await reconcileNewReplicaSet(this.d, all, newRS, this.scale))) return this.syncRolloutStatus(all, newRS);
    if (newRS && (await reconcileOldReplicaSets(this.d, all, activeReplicaSets(oldRSs), newRS, this.scale))) return this.syncRolloutStatus(all, newRS);
    if (deploymentComplete(this.d, this.d.status ?? {})) await this.cleanup(oldRSs);
    return this.syncRolloutStatus(all, newRS);
  }

  async rolloutRecreate(): Promise<ReconcileResult | void> {
    let { newRS, oldRSs } = await this.newAndOld(false);
    let all = [...oldRSs, ...(newRS ? [newRS] : [])];
    let scaledDown = false;
    for (const rs of activeReplicaSets(oldRSs)) if (await this.scale(rs, 0)) scaledDown = true;
    if (scaledDown || this.oldPodsRunning(oldRSs)) return this.syncRolloutStatus(all, newRS);
    if (!newRS) {
      ({ newRS, oldRSs } = await this.newAndOld(true));
      all = [...oldRSs, ...(newRS ? [newRS] : [])];
    }
    if (newRS) await this.scale(newRS, this.replicas());
    if (deploymentComplete(this.d, this.d.status ?? {})) await this.cleanup(oldRSs);
    return this.syncRolloutStatus(all, newRS);
  }

  /** Recreate waits until no pod of an old ReplicaSet is left running. */
  private oldPodsRunning(oldRSs: ReplicaSet[]): boolean {
    if (actualReplicas(oldRSs) > 0) return true;
    const uids = new Set(oldRSs.map((rs) => rs.metadata?.uid));
    return this.o.pods
      .namespace(this.d.metadata?.namespace ?? '')
      .list()
      .some((p) => uids.has(controllerRefOf(p)?.uid) && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded');
  }

  /** Deletes the oldest empty ReplicaSets beyond revisionHistoryLimit. */
  private async cleanup(oldRSs: ReplicaSet[]): Promise<void> {
    const limit = this.d.spec?.revisionHistoryLimit ?? 10;
    const alive = oldRSs.filter((rs) => !rs.metadata?.deletionTimestamp);
    const excess = alive.length - limit;
    if (excess <= 0) return;
    const byRevision = [...alive].sort((a, b) => revisionOf(a) - revisionOf(b) || oldestFirst(a, b));
    for (const rs of byRevision.slice(0, excess)) {
      if ((rs.status?.replicas ?? 0) !== 0 || (rs.spec?.replicas ?? 0) !== 0) continue;
      if ((rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      try {
        await this.rsClient.delete(rs.metadata?.name ?? '', { signal: this.signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  private calculateStatus(all: ReplicaSet[], newRS: ReplicaSet | undefined): DeploymentStatus {
    const available = availableReplicas(all);
    const status: DeploymentStatus = {
      observedGeneration: this.d.metadata?.generation,
      replicas: actualReplicas(all),
      updatedReplicas: actualReplicas(newRS ? [newRS] : []),
      readyReplicas: readyReplicas(all),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, specReplicas(all) - available),
      conditions: structuredClone(this.d.status?.conditions ?? []),
    };
    if (this.d.status?.collisionCount !== undefined) status.collisionCount = this.d.status.collisionCount;
    if (available >= this.replicas() - maxUnavailable(this.d)) {
      setCondition(status, newCondition(AVAILABLE, 'True', Reason.MinimumReplicasAvailable, 'Deployment has minimum availability.', this.now));
    } else {
      setCondition(status, newCondition(AVAILABLE, 'False', Reason.MinimumReplicasUnavailable, 'Deployment does not have minimum availability.', this.now));
    }
    return status;
  }

  private async syncDeploymentStatus(all: ReplicaSet[], newRS: ReplicaSet | undefined): Promise<void> {
    const status = this.calculateStatus(all, newRS);
    if (semanticEqual(status, this.d.status)) return;
    this.d = await this.deployClient.updateStatus({ ...this.d, status }, { signal: this.signal });
  }

  /** Status plus the Progressing condition; asks to come back when the progress deadline would pass. */
  private async syncRolloutStatus(all: ReplicaSet[], newRS: ReplicaSet | undefined): Promise<ReconcileResult | void> {
    const d = this.d;
    const status = this.calculateStatus(all, newRS);
    if (!hasProgressDeadline(d)) removeCondition(status, PROGRESSING);
    const current = getCondition(d.status, PROGRESSING);
    const complete = status.replicas === status.updatedReplicas && current?.reason === Reason.NewReplicaSetAvailable;
    const rsName = newRS?.metadata?.name;
    if (hasProgressDeadline(d) && !complete) {
      if (deploymentComplete(d, status)) {
        const msg = rsName ? `ReplicaSet "${rsName}" has successfully progressed.` : 'Deployment has successfully progressed.';
        setCondition(status, newCondition(PROGRESSING, 'True', Reason.NewReplicaSetAvailable, msg, this.now));
      } else if (deploymentProgressing(d, status)) {
        const msg = rsName ? `ReplicaSet "${rsName}" is progressing.` : 'Deployment is progressing.';
        const cond = newCondition(PROGRESSING, 'True', Reason.ReplicaSetUpdated, msg, this.now);
        // Progress refreshes lastUpdateTime even with the same reason: it restarts the deadline.
        if (current?.status === 'True') cond.lastTransitionTime = current.lastTransitionTime;
        removeCondition(status, PROGRESSING);
        setCondition(status, cond);
      } else if (deploymentTimedOut(d, status, this.now)) {
        const msg = rsName ? `ReplicaSet "${rsName}" has timed out progressing.` : `Deployment "${d.metadata?.name}" has timed out progressing.`;
        setCondition(status, newCondition(PROGRESSING, 'False', Reason.ProgressDeadlineExceeded, msg, this.now));
      }
    }
    if (semanticEqual(status, d.status)) return this.requeueStuck(status);
    this.d = await this.deployClient.updateStatus({ ...d, status }, { signal: this.signal });
  }

  /** A rollout making no progress is looked at again when its deadline passes. */
  private requeueStuck(status: DeploymentStatus): ReconcileResult | void {
    const cond = getCondition(status, PROGRESSING);
    if (!hasProgressDeadline(this.d) || !cond || cond.reason === Reason.NewReplicaSetAvailable || cond.reason === Reason.ProgressDeadlineExceeded) return;
    if (deploymentComplete(this.d, status)) return;
    const from = Date.parse(cond.lastUpdateTime ?? '');
    if (!Number.isFinite(from)) return;
    const after = from + (this.d.spec?.progressDeadlineSeconds ?? 600) * 1000 - this.now;
    return { requeueAfter: Math.max(after, 0) + 1000 };
  }
}
