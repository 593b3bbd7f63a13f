import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { metaNamespaceKey } from '../../client/cache/store.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { everyPeriod } from '../periodic.js';
import { CLAIM_KEY, PersistentVolumeBinder, VOLUME_KEY } from './pv-binder.js';
import { PERSISTENT_VOLUMES, PERSISTENT_VOLUME_CLAIMS, STORAGE_CLASSES } from '../../api/resource-refs.js';

/** Upstream's pvClaimBinderSyncPeriod: everything is looked at again this often. */
const RESYNC_MS = 15_000;

export const controller: ControllerDescriptor = {
  name: 'persistentvolume-binder',
  async start(ctx) {
    const claims = ctx.informers.forResource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS);
    const volumes = ctx.informers.forResource<PersistentVolume>(PERSISTENT_VOLUMES);
    const classes = ctx.informers.forResource<StorageClass>(STORAGE_CLASSES);
    const binder = new PersistentVolumeBinder({
      client: ctx.client,
      clock: ctx.clock,
      claims: claims.lister,
      volumes: volumes.lister,
      classes: classes.lister,
      recorder: ctx.eventRecorder('persistentvolume-controller'),
    });
    const c = newController(ctx, { reconciler: binder, queue: 'volumes' })
      .watches(claims, {
        enqueue: (pvc) => [`${CLAIM_KEY}${metaNamespaceKey(pvc)}`, ...(pvc.spec?.volumeName ? [`${VOLUME_KEY}${pvc.spec.volumeName}`] : [])],
      })
      .watches(volumes, {
        enqueue: (pv) => {
          const ref = pv.spec?.claimRef;
          return [`${VOLUME_KEY}${pv.metadata?.name}`, ...(ref?.name ? [`${CLAIM_KEY}${ref.namespace}/${ref.name}`] : [])];
        },
      })
      // a new class may let waiting claims be provisioned
      .watches(classes, { enqueue: () => claims.lister.list().filter((p) => !p.spec?.volumeName).map((p) => `${CLAIM_KEY}${metaNamespaceKey(p)}`) });
    ctx.informers.start(ctx.signal);
    const resync = everyPeriod(ctx, 'persistentvolume-binder resync', RESYNC_MS, async () => {
      for (const pvc of claims.lister.list()) c.queue.add(`${CLAIM_KEY}${metaNamespaceKey(pvc)}`);
      for (const pv of volumes.lister.list()) c.queue.add(`${VOLUME_KEY}${pv.metadata?.name}`);
    });
    await Promise.all([c.run(ctx.signal), resync]);
  },
};
