import { realClock, rfc3339, type Clock } from '../../base/clock.js';
import type { Namespace, NamespaceCondition } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../client/rest/client.js';
import type { ApiObject } from '../../client/rest/api-object.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import { isConflict, isNotFound } from '../../client/rest/error-predicates.js';
import { discoverNamespacedResources, type NamespacedResource } from './discovered-resources.js';
import { semanticEqual } from '../semantic-equal.js';
import { NAMESPACES } from '../../api/resource-refs.js';

export const KUBERNETES_FINALIZER = 'kubernetes';
/** How soon to look again while content is still going away (graceful pod deletion, finalizers). */
const RECHECK_MS = 1000;

export interface NamespaceReconcilerOptions {
  client: Client;
  namespaces: Lister<Namespace>;
  /** Stamps the namespace's conditions (default the real clock). */
  clock?: Clock;
}

function gr(r: NamespacedResource): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

/**
 * Empties a Terminating namespace: deletes every namespaced object in it
 * (built-in and discovered: custom resources and aggregated APIs),
 * reports what remains in the status conditions, and once nothing is left
 * removes the `kubernetes` finalizer through /finalize so the API server
 * deletes the namespace.
 */
export class NamespaceReconciler implements Reconciler {
  constructor(private readonly o: NamespaceReconcilerOptions) {}

  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const ns = this.o.namespaces.get(name);
    if (!ns?.metadata?.deletionTimestamp || !(ns.spec?.finalizers ?? []).includes(KUBERNETES_FINALIZER)) return;
    const remaining = new Map<string, number>();
    const failures: string[] = [];
    const finalizersLeft = new Set<string>();
    const discovered = await discoverNamespacedResources(this.o.client, signal);
    await Promise.all(
      discovered.resources.map(async (info) => {
        const rc = this.o.client.resource<ApiObject>({ group: info.group, version: info.version, resource: info.resource }).namespace(name);
        try {
          if (info.verbs.includes('deletecollection')) await rc.deleteCollection({ propagationPolicy: 'Background', signal });
          const left = (await rc.list({ signal })).items;
          for (const obj of left) {
            if (!info.verbs.includes('deletecollection') && !obj.metadata?.deletionTimestamp) await rc.delete(obj.metadata?.name ?? '', { propagationPolicy: 'Background', signal }).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
            for (const f of obj.metadata?.finalizers ?? []) finalizersLeft.add(f);
          }
          if (left.length > 0) remaining.set(gr(info), left.length);
        } catch (err) {
          if (isNotFound(err)) return;
          failures.push(`${gr(info)}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }),
    );
    await this.setConditions(ns, remaining, finalizersLeft, failures, discovered.failures, signal);
    if (remaining.size > 0 || failures.length > 0 || discovered.failures.length > 0) return { requeueAfter: RECHECK_MS };
    const finalized: Namespace = { ...structuredClone(ns), spec: { ...ns.spec, finalizers: (ns.spec?.finalizers ?? []).filter((f) => f !== KUBERNETES_FINALIZER) } };
    try {
      await this.o.client.resource<Namespace>(NAMESPACES).updateSubresource(name, 'finalize', finalized, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  private async setConditions(ns: Namespace, remaining: Map<string, number>, finalizers: Set<string>, failures: string[], discoveryFailures: string[], signal: AbortSignal): Promise<void> {
    const t = rfc3339((this.o.clock ?? realClock).now());
    const cond = (type: string, on: boolean, reason: string, message: string): NamespaceCondition => {
      const old = ns.status?.conditions?.find((c) => c.type === type);
      const status = on ? 'True' : 'False';
      return { type, status, reason, message, lastTransitionTime: old?.status === status ? old.lastTransitionTime : t };
    };
    const content = [...remaining].sort().map(([r, n]) => `${r} has ${n} resource instances`).join(', ');
    const conditions: NamespaceCondition[] = [
      discoveryFailures.length
        ? cond('NamespaceDeletionDiscoveryFailure', true, 'DiscoveryFailed', `Discovery failed for some groups, ${discoveryFailures.length} failing: ${discoveryFailures.join(', ')}`)
        : cond('NamespaceDeletionDiscoveryFailure', false, 'ResourcesDiscovered', 'All resources successfully discovered'),
      cond('NamespaceDeletionGroupVersionParsingFailure', false, 'ParsedGroupVersions', 'All legacy kube types successfully parsed'),
      failures.length ? cond('NamespaceDeletionContentFailure', true, 'ContentDeletionFailed', `Failed to delete all resource types, ${failures.length} remaining: ${failures.join(', ')}`) : cond('NamespaceDeletionContentFailure', false, 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'),
      remaining.size ? cond('NamespaceContentRemaining', true, 'SomeResourcesRemain', `Some resources are remaining: ${content}`) : cond('NamespaceContentRemaining', false, 'ContentRemoved', 'All content successfully removed'),
      finalizers.size ? cond('NamespaceFinalizersRemaining', true, 'SomeFinalizersRemain', `Some content in the namespace has finalizers remaining: ${[...finalizers].sort().join(', ')}`) : cond('NamespaceFinalizersRemaining', false, 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'),
    ];
    if (semanticEqual(conditions, ns.status?.conditions)) return;
    try {
      await this.o.client.resource<Namespace>(NAMESPACES).updateStatus({ ...structuredClone(ns), status: { ...ns.status, conditions } }, { signal });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
}
