import type { ApiObject } from '../../client/rest/api-object.js';
import { finalState } from '../../client/cache/deleted-final-state-unknown.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { deletableResources } from './deletable-resources.js';
import { FOREGROUND_FINALIZER, GarbageCollector, ORPHAN_FINALIZER } from './garbage-collector.js';
import { OwnerGraph, type GraphNode } from './owner-graph.js';
import { OwnerKinds } from './owner-kinds.js';
import { realClock } from '../../base/clock.js';

function needsAttention(n: GraphNode): boolean {
  return n.owners.length > 0 || (!!n.deletionTimestamp && (n.finalizers.includes(ORPHAN_FINALIZER) || n.finalizers.includes(FOREGROUND_FINALIZER)));
}

export const controller: ControllerDescriptor = {
  name: 'garbagecollector',
  async start(ctx) {
    const graph = new OwnerGraph();
    const c = newController(ctx, {
      queue: 'garbage_collector_attempt_to_delete',
      workers: 5,
      reconciler: new GarbageCollector({ client: ctx.client, graph, owners: new OwnerKinds(ctx.client, ctx.clock ?? realClock), enqueue: (uid) => c.queue.add(uid) }),
    });
    const nodes = ctx.metrics.gauge('garbagecollector_graph_nodes', 'Objects in the garbage collector owner graph');
    const informers: SharedIndexInformer<ApiObject>[] = [];
    for (const info of deletableResources()) {
      const informer = ctx.informers.forResource<ApiObject>({ group: info.group, version: info.version, resource: info.resource });
      informers.push(informer);
      const upsert = (obj: ApiObject): void => {
        const previous = graph.upsert(obj, info);
        const node = graph.get(obj.metadata?.uid ?? '')!;
        // Every event of an object with owners is a look, as before the upstream-style filter: an owner the
        // collector cannot watch (a custom kind not yet monitored) is noticed gone only when its dependent is looked at again.
        if (needsAttention(node)) c.queue.add(node.uid);
        // An owner deleting in the foreground may be unblocked by a dependent dropping its reference.
        for (const ref of previous?.owners ?? []) if (!node.owners.some((r) => r.uid === ref.uid)) c.queue.add(ref.uid);
        nodes.set({}, graph.size);
      };
      informer.addEventHandler({
        onAdd: upsert,
        onUpdate: (_, obj) => upsert(obj),
        onDelete: (obj) => {
          const removed = graph.remove(finalState(obj).metadata?.uid ?? '');
          if (!removed) return;
          // Its dependents may now dangle; its owners may be waiting for it.
          for (const d of graph.dependents(removed.uid)) c.queue.add(d.uid);
          for (const ref of removed.owners) c.queue.add(ref.uid);
          nodes.set({}, graph.size);
        },
      });
    }
    ctx.informers.start(ctx.signal);
    if (!(await waitForCacheSync(ctx.signal, ...informers))) return;
    ctx.logger.info('garbage collector synced', { resources: informers.length, objects: graph.size });
    await c.run(ctx.signal);
  },
};
