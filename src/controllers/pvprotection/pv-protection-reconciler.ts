import type { PersistentVolume } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import { PV_PROTECTION_FINALIZER } from '../../machinery/volume-binding.js';
import { PERSISTENT_VOLUMES } from '../../api/resource-refs.js';

export interface PvProtectionOptions {
  client: Client;
  volumes: Lister<PersistentVolume>;
}

/**
 * Upstream's pv-protection controller: a volume being deleted keeps its
 * `kubernetes.io/pv-protection` finalizer while it is Bound (the binder moves
 * it to Released once its claim is gone); volumes that predate the admission
 * plugin get the finalizer.
 */
export class PvProtectionReconciler implements Reconciler {
  constructor(private readonly o: PvProtectionOptions) {}

  async reconcile(name: string, signal: AbortSignal): Promise<void> {
    const pv = this.o.volumes.get(name);
    if (!pv) return;
    const finalizers = pv.metadata?.finalizers ?? [];
    const has = finalizers.includes(PV_PROTECTION_FINALIZER);
    if (pv.metadata?.deletionTimestamp) {
      if (!has || pv.status?.phase === 'Bound') return;
      await this.writeFinalizers(pv, finalizers.filter((f) => f !== PV_PROTECTION_FINALIZER), signal);
      return;
    }
    if (!has) await this.writeFinalizers(pv, [...finalizers, PV_PROTECTION_FINALIZER], signal);
  }

  private async writeFinalizers(pv: PersistentVolume, finalizers: string[], signal: AbortSignal): Promise<void> {
    try {
      await this.o.client.resource<PersistentVolume>(PERSISTENT_VOLUMES).update({ ...structuredClone(pv), metadata: { ...structuredClone(pv.metadata), finalizers } }, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
