import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../client/rest/client.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey, metaNamespaceKey } from '../../client/cache/store.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import { TerminalError } from '../../client/controller/reconciler.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import { ApiError } from '../../machinery/api-error.js';
import type { Selector } from '../../machinery/labels/index.js';
import { claimObjects } from '../claim-objects.js';
import { newControllerRef } from '../controller-ref.js';
import type { ControllerExpectations } from '../expectations.js';
import { isPodActive } from '../pod-readiness.js';
import { slowStartBatch } from '../slow-start-batch.js';
import { concurrencyLimit } from './concurrency-limit.js';
import { podsToDelete } from './rank-pods-for-deletion.js';
import { replicaSetStatus, sameReplicaSetStatus } from './replica-set-status.js';
import type { Replicated, ReplicatedKind } from './replicated-kind.js';
import { PODS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

/** Upstream's burstReplicas: the most pods created or deleted in one sync. */
export const BURST_REPLICAS = 500;
/** Pod creates/deletes in flight at once per controller; batches still grow 1, 2, 4, … as upstream. */
export const MAX_CONCURRENT_POD_WRITES = 16;

export interface ReplicaSetReconcilerOptions<T extends Replicated> {
  /** ReplicaSets, or ReplicationControllers (the same logic upstream). */
  kind: ReplicatedKind<T>;
  client: Client;
  owners: Lister<T>;
  pods: Lister<Pod>;
  expectations: ControllerExpectations;
  recorder: EventRecorder;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

/** Keeps `spec.replicas` active pods per ReplicaSet (or ReplicationController) and reports their status. */
export class ReplicaSetReconciler<T extends Replicated> implements Reconciler {
  private readonly clock: Clock;
  private readonly podWrites = concurrencyLimit(MAX_CONCURRENT_POD_WRITES);

  constructor(private readonly o: ReplicaSetReconcilerOptions<T>) {
    this.clock = o.clock ?? realClock;
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const { kind } = this.o;
    const rs = this.o.owners.namespace(namespace).get(name);
    if (!rs) {
      this.o.expectations.delete(key);
      return;
    }
    let selector: Selector;
    try {
      selector = kind.selector(rs);
    } catch (err) {
      throw new TerminalError(`invalid selector of ${kind.kind} ${key}`, { cause: err });
    }
    // Read before listing: pods observed after this cannot be missing from the list.
    const satisfied = this.o.expectations.satisfied(key);
    const all = this.o.pods.namespace(namespace).list();
    const podClient = this.o.client.resource<Pod>(PODS).namespace(namespace);
    const claimed = await claimObjects(all.filter(isPodActive), {
      owner: rs,
      ownerApiVersion: kind.apiVersion,
      ownerKind: kind.kind,
      selector,
      client: podClient,
      recheckOwner: () => this.o.client.resource<T>(kind.resource).namespace(namespace).get(name, { signal }),
    });
    if (satisfied && !rs.metadata?.deletionTimestamp) await this.manageReplicas(key, rs, claimed, all, podClient);
    const status = replicaSetStatus(rs, claimed, this.clock.now());
    if (!sameReplicaSetStatus(rs.status, status)) {
      try {
        await this.o.client.resource<T>(kind.resource).namespace(namespace).updateStatus({ ...structuredClone(rs), status }, { signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const minReady = rs.spec?.minReadySeconds ?? 0;
    // Pods become available with time only: look again when the next one may have.
    if (minReady > 0 && status.readyReplicas !== status.availableReplicas) return { requeueAfter: minReady * 1000 };
  }

  private async manageReplicas(key: string, rs: T, active: Pod[], all: readonly Pod[], podClient: ReturnType<Client['resource']>): Promise<void> {
    const diff = active.length - (rs.spec?.replicas ?? 1);
    if (diff < 0) {
      const want = Math.min(-diff, BURST_REPLICAS);
      this.o.expectations.expectCreations(key, want);
      const template = rs.spec?.template ?? {};
      const { successes, error } = await slowStartBatch(want, 1, () => this.podWrites(async () => {
        const pod: Pod = {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            generateName: `${rs.metadata?.name}-`,
            namespace: rs.metadata?.namespace,
            labels: { ...template.metadata?.labels },
            ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
            ...(template.metadata?.finalizers ? { finalizers: [...template.metadata.finalizers] } : {}),
            ownerReferences: [newControllerRef(rs, this.o.kind.apiVersion, this.o.kind.kind)],
          },
          spec: structuredClone(template.spec) as Pod['spec'],
        };
        try {
          const created = await podClient.create(pod);
          this.o.recorder.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name}`);
        } catch (err) {
          // The namespace is going away: nothing to create and nothing to report.
          if (err instanceof ApiError && err.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) throw err;
          this.o.recorder.event(rs, 'Warning', 'FailedCreate', `Error creating: ${err instanceof Error ? err.message : String(err)}`);
          throw err;
        }
      }));
      // Creates never sent or failed will never be observed.
      for (let i = successes; i < want; i++) this.o.expectations.creationObserved(key);
      if (error !== undefined) throw error;
      return;
    }
    if (diff > 0) {
      const victims = podsToDelete(active, all.filter(isPodActive), Math.min(diff, BURST_REPLICAS));
      this.o.expectations.expectDeletions(key, victims.map(metaNamespaceKey));
      const results = await Promise.allSettled(
        victims.map((p) => this.podWrites(async () => {
          try {
            await podClient.delete(p.metadata?.name ?? '');
            this.o.recorder.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata?.name}`);
          } catch (err) {
            this.o.expectations.deletionObserved(key, metaNamespaceKey(p));
            if (isNotFound(err)) return;
            this.o.recorder.event(rs, 'Warning', 'FailedDelete', `Error deleting: ${err instanceof Error ? err.message : String(err)}`);
            throw err;
          }
        })),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
  }
}
