import type { PersistentVolume } from 'kubernetes-types/core/v1.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { PvProtectionReconciler } from './pv-protection-reconciler.js';
import { PERSISTENT_VOLUMES } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'pv-protection',
  async start(ctx) {
    const volumes = ctx.informers.forResource<PersistentVolume>(PERSISTENT_VOLUMES);
    const c = newController(ctx, {
      reconciler: new PvProtectionReconciler({ client: ctx.client, volumes: volumes.lister }),
      queue: 'pvprotection',
    }).watches(volumes, { enqueue: 'self' });
    ctx.informers.start(ctx.signal);
    await c.run(ctx.signal);
  },
};
