import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { finalState as unwrap } from '../client/cache/deleted-final-state-unknown.js';
import type { HandlerRegistration } from '../client/cache/resource-event-handler.js';
import type { SharedInformerFactory } from '../client/cache/shared-informer-factory.js';
import type { ClusterEventResource } from './framework/interface.js';
import type { Scheduler } from './scheduler.js';
import { NAMESPACES, PERSISTENT_VOLUMES, PERSISTENT_VOLUME_CLAIMS, POD_DISRUPTION_BUDGETS, STORAGE_CLASSES } from '../api/resource-refs.js';

function terminal(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** What of a node matters to scheduling; heartbeats alone do not re-queue pods. */
function schedulingRelevant(n: Node): string {
  return JSON.stringify([n.metadata?.labels, n.spec?.taints, n.spec?.unschedulable, n.status?.allocatable, n.status?.images?.length]);
}

const EXTRA_RESOURCES: Partial<Record<ClusterEventResource, { group: string; version: string; resource: string }>> = {
  PersistentVolume: PERSISTENT_VOLUMES,
  PersistentVolumeClaim: PERSISTENT_VOLUME_CLAIMS,
  StorageClass: STORAGE_CLASSES,
  PodDisruptionBudget: POD_DISRUPTION_BUDGETS,
  Namespace: NAMESPACES,
};

/**
 * Feeds informer events to the scheduler: bound pods and nodes into the
 * cache, pending pods into the queue, and every change as a cluster event
 * that may retry parked pods.
 */
export function registerEventHandlers(s: Scheduler, informers: SharedInformerFactory, resources: readonly ClusterEventResource[]): HandlerRegistration[] {
  const regs: HandlerRegistration[] = [];
  regs.push(
    s.nodes.addEventHandler({
      onAdd: (n) => {
        s.cache.addNode(n);
        s.onClusterEvent({ resource: 'Node', action: 'Add' });
      },
      onUpdate: (old, n) => {
        s.cache.updateNode(n);
        if (schedulingRelevant(old) !== schedulingRelevant(n)) s.onClusterEvent({ resource: 'Node', action: 'Update' });
      },
      onDelete: (obj) => {
        s.cache.removeNode(unwrap(obj));
        s.onClusterEvent({ resource: 'Node', action: 'Delete' });
      },
    }),
  );
  regs.push(
    s.pods.addEventHandler({
      onAdd: (pod) => {
        if (terminal(pod)) return;
        if (pod.spec?.nodeName) {
          s.cache.addPod(pod);
          s.onClusterEvent({ resource: 'AssignedPod', action: 'Add' });
        } else if (s.responsibleFor(pod) && !pod.metadata?.deletionTimestamp) {
          s.queue.add(pod);
        }
      },
      onUpdate: (oldRaw, pod) => {
        if (pod.spec?.nodeName) {
          if (!oldRaw.spec?.nodeName) s.queue.delete(pod);
          if (terminal(pod)) {
            s.cache.removePod(pod);
            s.onClusterEvent({ resource: 'AssignedPod', action: 'Delete' });
            return;
          }
          s.cache.updatePod(pod);
          if (!oldRaw.spec?.nodeName) s.onClusterEvent({ resource: 'AssignedPod', action: 'Add' });
          else if (JSON.stringify(oldRaw.metadata?.labels) !== JSON.stringify(pod.metadata?.labels)) s.onClusterEvent({ resource: 'AssignedPod', action: 'Update' });
          return;
        }
        if (!s.responsibleFor(pod)) return;
        if (terminal(pod) || pod.metadata?.deletionTimestamp) s.queue.delete(pod);
        else if (!s.cache.isAssumed(pod)) s.queue.update(pod);
      },
      onDelete: (obj) => {
        const pod = unwrap(obj);
        if (pod.spec?.nodeName) {
          s.cache.removePod(pod);
          s.onClusterEvent({ resource: 'AssignedPod', action: 'Delete' });
          return;
        }
        s.queue.delete(pod);
        for (const p of s.profiles.values()) p.fwk.getWaitingPod(pod.metadata?.uid ?? '')?.reject('', 'pod was deleted');
      },
    }),
  );
  for (const r of resources) {
    const gvr = EXTRA_RESOURCES[r];
    if (!gvr) continue;
    regs.push(
      informers.forResource(gvr).addEventHandler({
        onAdd: (_o, initial) => {
          if (!initial) s.onClusterEvent({ resource: r, action: 'Add' });
        },
        onUpdate: () => s.onClusterEvent({ resource: r, action: 'Update' }),
        onDelete: () => s.onClusterEvent({ resource: r, action: 'Delete' }),
      }),
    );
  }
  return regs;
}
