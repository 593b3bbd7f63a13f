import type { ControllerRevision, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ownedBy } from '../../client/controller/owned-by.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { StatefulSetReconciler } from './stateful-set-reconciler.js';
import { CONTROLLER_REVISIONS, PODS, STATEFUL_SETS } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'statefulset',
  async start(ctx) {
    const sets = ctx.informers.forResource<StatefulSet>(STATEFUL_SETS);
    const pods = ctx.informers.forResource<Pod>(PODS);
    const revisions = ctx.informers.forResource<ControllerRevision>(CONTROLLER_REVISIONS);
    const reconciler = new StatefulSetReconciler({
      client: ctx.client,
      clock: ctx.clock,
      statefulSets: sets.lister,
      pods: pods.lister,
      revisions: revisions.lister,
      recorder: ctx.eventRecorder('statefulset-controller'),
    });
    const c = newController(ctx, {
      workers: 5,
      reconciler,
    })
      .watches(sets, { enqueue: 'self' })
      .watches(pods, { enqueue: ownedBy<Pod>('StatefulSet', 'apps') })
      .watches(revisions, { enqueue: ownedBy<ControllerRevision>('StatefulSet', 'apps') });
    ctx.informers.start(ctx.signal);
    await c.run(ctx.signal);
  },
};
