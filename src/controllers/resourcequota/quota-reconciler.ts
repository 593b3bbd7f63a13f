import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import { RESOURCES } from '../../api/resources.js';
import { RESOURCE_QUOTAS } from '../../api/resource-refs.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import { Quantity } from '../../machinery/quantity.js';
import { fromUsage, toUsage, usageEqual, type Usage } from '../../machinery/quota/resource-list.js';
import { matchingResources, parseCountName, quotaMatches, usageOf } from '../../machinery/quota/usage.js';

/** Upstream's --resource-quota-sync-period: a full recount this often even without events. */
export const QUOTA_RESYNC_MS = 5 * 60_000;

/** The objects of a resource the built-in table does not know (a custom resource) in one namespace, or undefined if it is not served. */
export type CustomResourceLister = (group: string, resource: string, namespace: string, signal: AbortSignal) => Promise<object[] | undefined>;

/** The namespaced objects of one resource, from an informer's cache. */
export interface ObjectSource {
  group: string;
  resource: string;
  lister: Lister<object & { metadata?: { namespace?: string } }>;
}

/**
 * Upstream's resource quota controller, level-triggered: a quota's
 * `status.hard` is its `spec.hard`, and `status.used` is what the objects of
 * its namespace that it covers (scopes) use now, recounted from the
 * informers' caches (a `count/<resource>.<group>` of another built-in is
 * listed through the API, of a custom resource through `customResources`).
 * Written under the quota's resourceVersion, so a race with
 * an admission charge is a conflict and a retry.
 */
export class QuotaReconciler implements Reconciler {
  constructor(
    private readonly o: {
      client: Client;
      quotas: Lister<ResourceQuota>;
      sources: ObjectSource[];
      now: () => Date;
      /** `count/<resource>.<group>` of custom resources (found by discovery); without it they count zero. */
      customResources?: CustomResourceLister;
    },
  ) {}

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const [namespace, name] = key.split('/');
    const quota = this.o.quotas.namespace(namespace).get(name);
    if (!quota || quota.metadata?.deletionTimestamp) return {};
    const hard = toUsage(quota.spec?.hard as Record<string, string>);
    const used = await this.usage(quota, namespace, [...hard.keys()], signal);
    const statusHard = toUsage(quota.status?.hard as Record<string, string>);
    const statusUsed = toUsage(quota.status?.used as Record<string, string>);
    if (quota.status?.hard && quota.status.used && usageEqual(hard, statusHard) && usageEqual(used, statusUsed)) return { requeueAfter: QUOTA_RESYNC_MS };
    const next = structuredClone(quota);
    next.status = { hard: fromUsage(hard), used: fromUsage(used) };
    try {
      await this.o.client.resource<ResourceQuota>(RESOURCE_QUOTAS).namespace(namespace).updateStatus(next, { signal });
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    return { requeueAfter: QUOTA_RESYNC_MS };
  }

  /** Each hard resource's current use in the namespace (zero when nothing uses it). */
  private async usage(quota: ResourceQuota, namespace: string, names: string[], signal: AbortSignal): Promise<Usage> {
    const used: Usage = new Map(names.map((n) => [n, Quantity.fromValue(0)]));
    const charge = (group: string, resource: string, obj: object) => {
      if (!quotaMatches(quota, group, resource, obj)) return;
      const usage = usageOf(group, resource, obj, this.o.now());
      for (const n of matchingResources(group, resource, names)) {
        const q = usage.get(n);
        if (q) used.set(n, used.get(n)!.add(q));
      }
    };
    const covered = new Set<string>();
    for (const src of this.o.sources) {
      if (matchingResources(src.group, src.resource, names).length === 0) continue;
      covered.add(`${src.group}/${src.resource}`);
      for (const obj of src.lister.namespace(namespace).list()) charge(src.group, src.resource, obj);
    }
    // object counts of other built-in resources: listed through the API
    for (const n of names) {
      const counted = parseCountName(n);
      if (!counted || covered.has(`${counted.group}/${counted.resource}`)) continue;
      covered.add(`${counted.group}/${counted.resource}`);
      const info = RESOURCES.find((r) => r.group === counted.group && r.resource === counted.resource);
      if (!info) {
        const objects = await this.o.customResources?.(counted.group, counted.resource, namespace, signal);
        for (const obj of objects ?? []) charge(counted.group, counted.resource, obj);
        continue;
      }
      if (!info.namespaced) continue;
      const list = await this.o.client.resource<object>({ group: info.group, version: info.version, resource: info.resource }).namespace(namespace).list({ signal });
      for (const obj of list.items) charge(info.group, info.resource, obj);
    }
    return used;
  }
}
