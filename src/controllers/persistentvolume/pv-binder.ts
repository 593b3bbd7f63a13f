import type { PersistentVolume, PersistentVolumeClaim, PersistentVolumeClaimStatus, PersistentVolumeStatus } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import type { Client } from '../../client/rest/client.js';
import { PERSISTENT_VOLUMES, PERSISTENT_VOLUME_CLAIMS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_DYNAMICALLY_PROVISIONED,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
  NO_PROVISIONER,
  findMatchingVolume,
  isVolumeBoundToClaim,
  storageClassOf,
} from '../../machinery/volume-binding.js';

type Writable<T, S> = Omit<T, 'status'> & { status?: S };
type PV = Writable<PersistentVolume, PersistentVolumeStatus>;
type PVC = Writable<PersistentVolumeClaim, PersistentVolumeClaimStatus>;

export const CLAIM_KEY = 'claim/';
export const VOLUME_KEY = 'volume/';

export interface PersistentVolumeBinderOptions {
  client: Client;
  claims: Lister<PersistentVolumeClaim>;
  volumes: Lister<PersistentVolume>;
  classes: Lister<StorageClass>;
  recorder: EventRecorder;
  clock?: Clock;
}

/**
 * Upstream's persistentvolume-binder: binds claims to volumes (pre-bound,
 * else the smallest matching Available one), hands claims of classes with a
 * provisioner to that provisioner (`volume.kubernetes.io/storage-provisioner`),
 * waits for the scheduler on WaitForFirstConsumer classes, keeps the phases
 * (Pending, Available, Bound, Released, Failed, Lost) and releases volumes
 * whose claim is gone. Keys are `claim/<ns>/<name>` and `volume/<name>`;
 * each sync reads the caches and writes what differs, so it is idempotent.
 */
export class PersistentVolumeBinder implements Reconciler {
  private readonly clock: Clock;

  constructor(private readonly o: PersistentVolumeBinderOptions) {
    this.clock = o.clock ?? realClock;
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    if (key.startsWith(CLAIM_KEY)) {
      const rest = key.slice(CLAIM_KEY.length);
      const i = rest.indexOf('/');
      const pvc = this.o.claims.namespace(rest.slice(0, i)).get(rest.slice(i + 1));
      if (pvc) await this.syncClaim(structuredClone(pvc) as PVC);
    } else if (key.startsWith(VOLUME_KEY)) {
      const pv = this.o.volumes.get(key.slice(VOLUME_KEY.length));
      if (pv) await this.syncVolume(structuredClone(pv) as PV);
    }
  }

  private async syncClaim(pvc: PVC): Promise<void> {
    if (pvc.metadata?.deletionTimestamp) return;
    if (!pvc.spec?.volumeName) return this.syncUnboundClaim(pvc);
    const pv = this.o.volumes.get(pvc.spec.volumeName);
    const completed = pvc.metadata?.annotations?.[ANN_BIND_COMPLETED] !== undefined;
    if (!pv) {
      if (completed) {
        if (pvc.status?.phase !== 'Lost') this.o.recorder.event(pvc as PersistentVolumeClaim, 'Warning', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
        await this.setClaimPhase(pvc, 'Lost');
      } else {
        await this.setClaimPhase(pvc, 'Pending');
      }
      return;
    }
    if (!pv.spec?.claimRef || isVolumeBoundToClaim(pv, pvc as PersistentVolumeClaim)) {
      await this.bind(structuredClone(pv) as PV, pvc);
      return;
    }
    if (completed) {
      if (pvc.status?.phase !== 'Lost') this.o.recorder.event(pvc as PersistentVolumeClaim, 'Warning', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
      await this.setClaimPhase(pvc, 'Lost');
    } else {
      this.o.recorder.event(pvc as PersistentVolumeClaim, 'Warning', 'FailedBinding', `volume "${pv.metadata?.name}" already bound to a different claim.`);
      await this.setClaimPhase(pvc, 'Pending');
    }
  }

  private async syncUnboundClaim(pvc: PVC): Promise<void> {
    const className = storageClassOf(pvc);
    const sc = className ? this.o.classes.get(className) : undefined;
    const delayBinding = sc?.volumeBindingMode === 'WaitForFirstConsumer';
    const pv = findMatchingVolume(pvc as PersistentVolumeClaim, this.o.volumes.list(), { delayBinding });
    if (pv) {
      await this.bind(structuredClone(pv) as PV, pvc);
      return;
    }
    await this.setClaimPhase(pvc, 'Pending');
    const ref = pvc as PersistentVolumeClaim;
    if (delayBinding && !pvc.metadata?.annotations?.[ANN_SELECTED_NODE]) {
      this.o.recorder.event(ref, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
      return;
    }
    if (!className) {
      this.o.recorder.event(ref, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      return;
    }
    if (!sc) {
      this.o.recorder.event(ref, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      return;
    }
    if (sc.provisioner === NO_PROVISIONER) {
      this.o.recorder.event(ref, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      return;
    }
    const annotations = pvc.metadata?.annotations ?? {};
    if (annotations[ANN_STORAGE_PROVISIONER] !== sc.provisioner || annotations[ANN_BETA_STORAGE_PROVISIONER] !== sc.provisioner) {
      pvc.metadata = { ...pvc.metadata, annotations: { ...annotations, [ANN_STORAGE_PROVISIONER]: sc.provisioner, [ANN_BETA_STORAGE_PROVISIONER]: sc.provisioner } };
      await this.claims(pvc).update(pvc as PersistentVolumeClaim);
    }
    this.o.recorder.event(ref, 'Normal', 'ExternalProvisioning', `waiting for a volume to be created, either by external provisioner "${sc.provisioner}" or manually created by system administrator`);
  }

  /** Both halves of a binding, each written only when it differs: the volume's claimRef and phase, then the claim's volumeName, annotations and status. */
  private async bind(pv: PV, pvc: PVC): Promise<void> {
    const claimRef = {
      kind: 'PersistentVolumeClaim',
      namespace: pvc.metadata?.namespace,
      name: pvc.metadata?.name,
      uid: pvc.metadata?.uid,
      apiVersion: 'v1',
      resourceVersion: pvc.metadata?.resourceVersion,
    };
    const ref = pv.spec?.claimRef;
    if (!ref || ref.uid !== claimRef.uid) {
      const annotations = { ...(pv.metadata?.annotations ?? {}) };
      if (!ref) annotations[ANN_BOUND_BY_CONTROLLER] = 'yes';
      pv.metadata = { ...pv.metadata, annotations };
      pv.spec = { ...pv.spec, claimRef };
      Object.assign(pv, await this.o.client.resource<PersistentVolume>(PERSISTENT_VOLUMES).update(pv as PersistentVolume));
    }
    await this.setVolumePhase(pv, 'Bound');

    const annotations = { ...(pvc.metadata?.annotations ?? {}) };
    let changed = false;
    if (!pvc.spec?.volumeName) {
      pvc.spec = { ...pvc.spec, volumeName: pv.metadata?.name };
      annotations[ANN_BOUND_BY_CONTROLLER] = 'yes';
      changed = true;
    }
    if (annotations[ANN_BIND_COMPLETED] === undefined) {
      annotations[ANN_BIND_COMPLETED] = 'yes';
      changed = true;
    }
    if (changed) {
      pvc.metadata = { ...pvc.metadata, annotations };
      Object.assign(pvc, await this.claims(pvc).update(pvc as PersistentVolumeClaim));
    }
    const status: PersistentVolumeClaimStatus = {
      ...(pvc.status ?? {}),
      phase: 'Bound',
      accessModes: pv.spec?.accessModes,
      capacity: pv.spec?.capacity,
    };
    if (JSON.stringify(status) !== JSON.stringify(pvc.status ?? {})) {
      await this.claims(pvc).updateStatus({ ...(pvc as PersistentVolumeClaim), status } as PersistentVolumeClaim);
    }
  }

  private async syncVolume(pv: PV): Promise<void> {
    const ref = pv.spec?.claimRef;
    if (!ref) {
      await this.setVolumePhase(pv, 'Available');
      return;
    }
    // Pre-bound by a user or the scheduler: the claim's sync completes the binding.
    if (!ref.uid) {
      await this.setVolumePhase(pv, 'Available');
      return;
    }
    let pvc = this.o.claims.namespace(ref.namespace ?? '').get(ref.name ?? '');
    if (pvc && pvc.metadata?.uid !== ref.uid) pvc = undefined;
    if (!pvc) {
      // The claim is gone: the volume is released and reclaimed by its policy.
      if (pv.status?.phase !== 'Released' && pv.status?.phase !== 'Failed') await this.setVolumePhase(pv, 'Released');
      await this.reclaim(pv);
      return;
    }
    if (!pvc.spec?.volumeName) return; // the claim's sync finishes the binding
    if (pvc.spec.volumeName === pv.metadata?.name) {
      await this.setVolumePhase(pv, 'Bound');
      return;
    }
    // The claim went to another volume: undo our half of the binding.
    if (pv.metadata?.annotations?.[ANN_BOUND_BY_CONTROLLER] !== undefined) {
      const annotations = { ...(pv.metadata.annotations ?? {}) };
      delete annotations[ANN_BOUND_BY_CONTROLLER];
      pv.metadata = { ...pv.metadata, annotations };
      pv.spec = { ...pv.spec, claimRef: undefined };
    } else {
      pv.spec = { ...pv.spec, claimRef: { ...ref, uid: undefined } };
    }
    Object.assign(pv, await this.o.client.resource<PersistentVolume>(PERSISTENT_VOLUMES).update(pv as PersistentVolume));
    await this.setVolumePhase(pv, 'Available');
  }

  /** Retain keeps the Released volume; Delete of a provisioned volume is its provisioner's job; other deletes and Recycle have no plugin here. */
  private async reclaim(pv: PV): Promise<void> {
    const policy = pv.spec?.persistentVolumeReclaimPolicy ?? 'Retain';
    if (policy === 'Retain' || pv.status?.phase === 'Failed') return;
    if (policy === 'Delete') {
      if (pv.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== undefined) return;
      const message = `error getting deleter volume plugin for volume "${pv.metadata?.name}": no deletable volume plugin matched`;
      this.o.recorder.event(pv as PersistentVolume, 'Warning', 'VolumeFailedDelete', message);
      await this.setVolumePhase(pv, 'Failed', message);
      return;
    }
    const message = `No recycler plugin found for the volume!`;
    this.o.recorder.event(pv as PersistentVolume, 'Warning', 'VolumeFailedRecycle', message);
    await this.setVolumePhase(pv, 'Failed', message);
  }

  private async setVolumePhase(pv: PV, phase: string, message?: string): Promise<void> {
    if (pv.status?.phase === phase && (message === undefined || pv.status?.message === message)) return;
    const status: PersistentVolumeStatus = { ...(pv.status ?? {}), phase, lastPhaseTransitionTime: new Date(this.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z') };
    if (message !== undefined) status.message = message;
    else delete status.message;
    Object.assign(pv, await this.o.client.resource<PersistentVolume>(PERSISTENT_VOLUMES).updateStatus({ ...(pv as PersistentVolume), status } as PersistentVolume));
  }

  private async setClaimPhase(pvc: PVC, phase: string): Promise<void> {
    if (pvc.status?.phase === phase) return;
    Object.assign(pvc, await this.claims(pvc).updateStatus({ ...(pvc as PersistentVolumeClaim), status: { ...(pvc.status ?? {}), phase } } as PersistentVolumeClaim));
  }

  private claims(pvc: PVC) {
    return this.o.client.resource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS).namespace(pvc.metadata?.namespace ?? '');
  }
}
