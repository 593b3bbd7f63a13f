import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import { CONFIG_MAPS, PERSISTENT_VOLUME_CLAIMS, PODS, REPLICATION_CONTROLLERS, RESOURCE_QUOTAS, SECRETS, SERVICES } from '../../api/resource-refs.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { QuotaReconciler, type CustomResourceLister, type ObjectSource } from './quota-reconciler.js';
import { CustomResourceDiscovery } from './custom-resource-counts.js';
import { realClock } from '../../base/clock.js';

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
    // any change in a namespace may change what its quotas use: recount them all (the queue folds repeats)
    const quotasOf = (obj: { metadata?: { namespace?: string } }) => {
      const ns = obj.metadata?.namespace ?? '';
      return quotas.lister.namespace(ns).list().map((q) => `${ns}/${q.metadata?.name ?? ''}`);
    };
    // custom resources a quota counts (`count/widgets.example.com`): found by discovery, then watched like the
    // built-ins (upstream's quota monitors), so creates and deletes are recounted; listed through the API until synced
    const discovery = new CustomResourceDiscovery(ctx.client, ctx.clock ?? realClock);
    const watchedCustom = new Set<string>();
    const customResources: CustomResourceLister = async (group, resource, namespace, signal) => {
      const gvr = await discovery.resolve(group, resource, signal);
      if (!gvr) return undefined;
      const informer = ctx.informers.forResource<{ metadata?: { namespace?: string; name?: string } }>(gvr);
      const key = `${gvr.group}/${gvr.version}/${gvr.resource}`;
      if (!watchedCustom.has(key)) {
        watchedCustom.add(key);
        c.watches(informer, { enqueue: quotasOf });
        ctx.informers.start(ctx.signal);
      }
      if (informer.hasSynced()) return informer.lister.namespace(namespace).list();
      return (await ctx.client.resource<{ metadata?: { namespace?: string } }>(gvr, { namespaced: true }).namespace(namespace).list({ signal })).items;
    };
    const reconciler = new QuotaReconciler({ client: ctx.client, quotas: quotas.lister, sources, now, customResources });
    const c = newController(ctx, { workers: 2, reconciler }).watches(quotas, { enqueue: 'self' });
    for (const { informer } of informers) c.watches(informer, { enqueue: quotasOf });
    await c.run(ctx.signal);
  },
};
