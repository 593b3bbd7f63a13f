import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { ownedBy } from '../../client/controller/owned-by.js';
import { metaNamespaceKey } from '../../client/cache/store.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { PodExpectations } from '../history/pod-expectations.js';
import { DaemonSetReconciler } from './daemon-set-reconciler.js';
import { CONTROLLER_REVISIONS, DAEMON_SETS, NODES, PODS } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'daemonset',
  async start(ctx) {
    const daemonSets = ctx.informers.forResource<DaemonSet>(DAEMON_SETS);
    const pods = ctx.informers.forResource<Pod>(PODS);
    const nodes = ctx.informers.forResource<Node>(NODES);
    const revisions = ctx.informers.forResource<ControllerRevision>(CONTROLLER_REVISIONS);
    const reconciler = new DaemonSetReconciler({
      client: ctx.client,
      clock: ctx.clock,
      daemonSets: daemonSets.lister,
      pods: pods.lister,
      nodes: nodes.lister,
      revisions: revisions.lister,
      expectations: new PodExpectations(ctx.clock),
      recorder: ctx.eventRecorder('daemonset-controller'),
    });
    const c = newController(ctx, {
      workers: 2,
      reconciler,
    })
      .watches(daemonSets, { enqueue: 'self' })
      .watches(pods, { enqueue: ownedBy<Pod>('DaemonSet', 'apps') })
      // Any node change (labels, taints, a new node) may change where every DaemonSet runs.
      .watches(nodes, { enqueue: () => daemonSets.lister.list().map(metaNamespaceKey) });
    ctx.informers.start(ctx.signal);
    await c.run(ctx.signal);
  },
};
