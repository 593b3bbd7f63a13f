import type { PersistentVolumeClaim, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import type { Reconciler } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import { PVC_PROTECTION_FINALIZER } from '../../machinery/volume-binding.js';
import { PERSISTENT_VOLUME_CLAIMS, PODS } from '../../api/resource-refs.js';

export interface PvcProtectionOptions {
  client: Client;
  claims: Lister<PersistentVolumeClaim>;
  pods: Lister<Pod>;
}

/** Whether the kubelet is done with the pod (deleted with grace 0) or it was force-deleted (upstream's podIsShutDown). */
function podIsShutDown(pod: Pod): boolean {
  return Boolean(pod.metadata?.deletionTimestamp) && pod.metadata?.deletionGracePeriodSeconds === 0;
}

/** The claim a volume stands for: its own claim, or the `<pod>-<volume>` claim of a generic ephemeral volume. */
export function claimNameOf(pod: Pod, volume: Volume): string | undefined {
  if (volume.persistentVolumeClaim) return volume.persistentVolumeClaim.claimName;
  if (volume.ephemeral) return `${pod.metadata?.name}-${volume.name}`;
  return undefined;
}

/**
 * Whether the pod keeps the claim in use, as upstream's pvc-protection
 * controller decides: only a scheduled pod counts (the kubelet refuses to
 * start a pod whose claim is being deleted); a claim it names counts for as
 * long as the pod exists, an ephemeral volume's claim (owned by the pod) until
 * the pod is shut down.
 */
export function podUsesClaim(pod: Pod, pvc: PersistentVolumeClaim): boolean {
  if (!pod.spec?.nodeName || pod.metadata?.namespace !== pvc.metadata?.namespace) return false;
  return (pod.spec.volumes ?? []).some((v) => {
    if (v.persistentVolumeClaim) return v.persistentVolumeClaim.claimName === pvc.metadata?.name;
    if (!v.ephemeral || podIsShutDown(pod) || claimNameOf(pod, v) !== pvc.metadata?.name) return false;
    return (pvc.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.uid === pod.metadata?.uid);
  });
}

/**
 * Upstream's pvc-protection controller: a claim being deleted keeps its
 * `kubernetes.io/pvc-protection` finalizer while a pod uses it (looked up in
 * the cache, then confirmed by a live list, since a new pod may not be cached
 * yet); claims that predate the admission plugin get the finalizer.
 */
export class PvcProtectionReconciler implements Reconciler {
  constructor(private readonly o: PvcProtectionOptions) {}

  async reconcile(key: string, signal: AbortSignal): Promise<void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const pvc = this.o.claims.namespace(namespace).get(name);
    if (!pvc) return;
    const finalizers = pvc.metadata?.finalizers ?? [];
    const has = finalizers.includes(PVC_PROTECTION_FINALIZER);
    if (pvc.metadata?.deletionTimestamp) {
      if (!has || (await this.inUse(pvc, signal))) return;
      await this.writeFinalizers(pvc, finalizers.filter((f) => f !== PVC_PROTECTION_FINALIZER), signal);
      return;
    }
    if (!has) await this.writeFinalizers(pvc, [...finalizers, PVC_PROTECTION_FINALIZER], signal);
  }

  private async inUse(pvc: PersistentVolumeClaim, signal: AbortSignal): Promise<boolean> {
    const namespace = pvc.metadata?.namespace ?? '';
    if (this.o.pods.namespace(namespace).list().some((p) => podUsesClaim(p, pvc))) return true;
    const live = await this.o.client.resource<Pod>(PODS).namespace(namespace).list({ signal });
    return live.items.some((p) => podUsesClaim(p, pvc));
  }

  /** An update of the cached object: a conflict (stale cache) is retried with the fresh claim. */
  private async writeFinalizers(pvc: PersistentVolumeClaim, finalizers: string[], signal: AbortSignal): Promise<void> {
    try {
      await this.o.client
        .resource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS)
        .namespace(pvc.metadata?.namespace ?? '')
        .update({ ...structuredClone(pvc), metadata: { ...structuredClone(pvc.metadata), finalizers } }, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
