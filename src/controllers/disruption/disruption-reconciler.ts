import type { Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import type { Condition } from 'kubernetes-types/meta/v1.js';
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import type { Client } from '../../client/rest/client.js';
import { isConflict, isNotFound } from '../../client/rest/error-predicates.js';
import { labelSelectorFromObject } from '../../machinery/labels/index.js';
import { formatTime } from '../../machinery/time.js';
import { semanticEqual } from '../semantic-equal.js';
import { BudgetError, computeBudgetStatus } from './budget-status.js';
import { POD_DISRUPTION_BUDGETS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

export interface DisruptionListers {
  pdbs: Lister<PodDisruptionBudget>;
  pods: Lister<Pod>;
  replicaSets: Lister<ReplicaSet>;
  deployments: Lister<Deployment>;
  statefulSets: Lister<StatefulSet>;
  replicationControllers?: Lister<ReplicationController>;
}

/** Upstream's disruption controller: keeps each PodDisruptionBudget's status and DisruptionAllowed condition. */
export class DisruptionReconciler implements Reconciler {
  private readonly clock: Clock;

  constructor(private readonly o: DisruptionListers & { client: Client; recorder: EventRecorder; clock?: Clock }) {
    this.clock = o.clock ?? realClock;
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const pdb = this.o.pdbs.namespace(namespace).get(name);
    if (!pdb || pdb.metadata?.deletionTimestamp) return;
    const now = this.clock.now();
    let status: PodDisruptionBudgetStatus;
    let recheckAfter: number | undefined;
    let condition: Omit<Condition, 'lastTransitionTime'>;
    try {
      const pods = this.podsFor(pdb);
      if (pods.length === 0) this.o.recorder.event(pdb, 'Normal', 'NoPods', 'No matching pods found');
      ({ status, recheckAfter } = computeBudgetStatus({ pdb, pods, controllerScale: (p) => this.controllerScale(p), now }));
      condition = status.disruptionsAllowed > 0
        ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '' }
        : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '' };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof BudgetError) this.o.recorder.event(pdb, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${message}`);
      // upstream's failSafe: nothing may be disrupted while the counts are unknown
      status = { ...pdb.status, observedGeneration: pdb.metadata?.generation, disruptionsAllowed: 0, currentHealthy: pdb.status?.currentHealthy ?? 0, desiredHealthy: pdb.status?.desiredHealthy ?? 0, expectedPods: pdb.status?.expectedPods ?? 0 };
      condition = { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message };
    }
    const previous = pdb.status?.conditions?.find((c) => c.type === 'DisruptionAllowed');
    const lastTransitionTime = previous && previous.status === condition.status ? previous.lastTransitionTime : formatTime(new Date(now));
    const conditions = [...(pdb.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionAllowed'), { ...condition, observedGeneration: pdb.metadata?.generation, lastTransitionTime }];
    const next: PodDisruptionBudgetStatus = { ...status, conditions };
    if (!semanticEqual(pdb.status, next)) {
      const clone = structuredClone(pdb) as PodDisruptionBudget;
      try {
        await this.o.client.resource<PodDisruptionBudget>(POD_DISRUPTION_BUDGETS).namespace(namespace).updateStatus({ ...clone, status: next }, { signal });
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err)) throw err;
        return { requeueAfter: 0 };
      }
    }
    return recheckAfter !== undefined ? { requeueAfter: recheckAfter } : undefined;
  }

  /** The budget's pods; a selector that cannot be parsed is upstream's `NoPods` warning ("Failed to get pods: …") and fails the sync. */
  private podsFor(pdb: PodDisruptionBudget): Pod[] {
    let selector;
    try {
      selector = labelSelectorFromObject(pdb.spec?.selector);
    } catch (err) {
      this.o.recorder.event(pdb, 'Warning', 'NoPods', `Failed to get pods: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    return this.o.pods.namespace(pdb.metadata?.namespace ?? '').list((labels) => selector.matches(labels));
  }

  /** The replicas of the workload controlling a pod: Deployment (through its ReplicaSet), ReplicaSet, StatefulSet or ReplicationController. */
  private controllerScale(pod: Pod): { uid: string; replicas: number } | undefined {
    const ns = pod.metadata?.namespace ?? '';
    const ref = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
    if (!ref) return undefined;
    if (ref.kind === 'ReplicaSet') {
      const rs = this.o.replicaSets.namespace(ns).get(ref.name);
      if (!rs || rs.metadata?.uid !== ref.uid) return undefined;
      const dref = rs.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === 'Deployment');
      const d = dref ? this.o.deployments.namespace(ns).get(dref.name) : undefined;
      if (d && d.metadata?.uid === dref?.uid) return { uid: d.metadata?.uid ?? '', replicas: d.spec?.replicas ?? 1 };
      return { uid: rs.metadata?.uid ?? '', replicas: rs.spec?.replicas ?? 1 };
    }
    if (ref.kind === 'StatefulSet') {
      const ss = this.o.statefulSets.namespace(ns).get(ref.name);
      return ss && ss.metadata?.uid === ref.uid ? { uid: ref.uid, replicas: ss.spec?.replicas ?? 1 } : undefined;
    }
    if (ref.kind === 'ReplicationController') {
      const rc = this.o.replicationControllers?.namespace(ns).get(ref.name);
      return rc && rc.metadata?.uid === ref.uid ? { uid: ref.uid, replicas: rc.spec?.replicas ?? 1 } : undefined;
    }
    return undefined;
  }
}
