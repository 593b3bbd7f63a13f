import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { claimNameOf, PvcProtectionReconciler } from './pvc-protection-reconciler.js';
import { PERSISTENT_VOLUME_CLAIMS, PODS } from '../../api/resource-refs.js';
import { PVC_PROTECTION_FINALIZER } from '../../machinery/volume-binding.js';

export const controller: ControllerDescriptor = {
  name: 'pvc-protection',
  async start(ctx) {
    const claims = ctx.informers.forResource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS);
    const pods = ctx.informers.forResource<Pod>(PODS);
    const c = newController(ctx, {
      reconciler: new PvcProtectionReconciler({ client: ctx.client, claims: claims.lister, pods: pods.lister }),
      queue: 'pvcprotection',
    })
      .watches(claims, {
        enqueue: (pvc) => {
          const has = (pvc.metadata?.finalizers ?? []).includes(PVC_PROTECTION_FINALIZER);
          return has === Boolean(pvc.metadata?.deletionTimestamp) ? [`${pvc.metadata?.namespace}/${pvc.metadata?.name}`] : [];
        },
      })
      // a pod that goes (or changes) may free a claim that is being deleted
      .watches(pods, {
        enqueue: (pod) => {
          const ns = pod.metadata?.namespace ?? '';
          return (pod.spec?.volumes ?? [])
            .map((v) => claimNameOf(pod, v))
            .filter((n): n is string => n !== undefined && Boolean(claims.lister.namespace(ns).get(n)?.metadata?.deletionTimestamp))
            .map((n) => `${ns}/${n}`);
        },
      });
    ctx.informers.start(ctx.signal);
    await c.run(ctx.signal);
  },
};
