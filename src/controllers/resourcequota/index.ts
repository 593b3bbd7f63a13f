import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import { CONFIG_MAPS, PERSISTENT_VOLUME_CLAIMS, PODS, REPLICATION_CONTROLLERS, RESOURCE_QUOTAS, SECRETS, SERVICES } from '../../api/resource-refs.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { QuotaReconciler, type ObjectSource } from './quota-reconciler.js';

/** The resources whose objects quotas most often count, watched so usage follows them. */
const WATCHED = [PODS, SERVICES, PERSISTENT_VOLUME_CLAIMS, CONFIG_MAPS, SECRETS, REPLICATION_CONTROLLERS];

/** Keeps every ResourceQuota's `status.hard` and `status.used` (upstream's `resourcequota` controller). */
export const controller: ControllerDescriptor = {
  name: 'resourcequota',
  async start(ctx) {
    const quotas = ctx.informers.forResource<ResourceQuota>(RESOURCE_QUOTAS);
    const informers = WATCHED.map((ref) => ({ ref, informer: ctx.informers.forResource<{ metadata?: { namespace?: string; name?: string } }>(ref) }));
    const sources: ObjectSource[] = [
      { group: '', resource: 'resourcequotas', lister: quotas.lister },
      ...informers.map(({ ref, informer }) => ({ group: ref.group, resource: ref.resource, lister: informer.lister })),
    ];
    const now = () => (ctx.clock ? new Date(ctx.clock.now()) : new Date());
    const reconciler = new QuotaReconciler({ client: ctx.client, quotas: quotas.lister, sources, now });
    // any change in a namespace may change what its quotas use: recount them all (the queue folds repeats)
    const quotasOf = (obj: { metadata?: { namespace?: string } }) => {
      const ns = obj.metadata?.namespace ?? '';
      return quotas.lister.namespace(ns).list().map((q) => `${ns}/${q.metadata?.name ?? ''}`);
    };
    let c = newController(ctx, { workers: 2, reconciler }).watches(quotas, { enqueue: 'self' });
    for (const { informer } of informers) c = c.watches(informer, { enqueue: quotasOf });
    await c.run(ctx.signal);
  },
};
