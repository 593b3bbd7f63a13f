import type { Node, PersistentVolume, PersistentVolumeClaim, PersistentVolumeClaimStatus, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { join } from 'node:path';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import type { Client } from '../../client/rest/client.js';
import { isAlreadyExists, isNotFound } from '../../client/rest/error-predicates.js';
import { PERSISTENT_VOLUMES, PERSISTENT_VOLUME_CLAIMS, PODS } from '../../api/resource-refs.js';
import { ANN_DYNAMICALLY_PROVISIONED, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, ANN_BETA_STORAGE_PROVISIONER, requestedStorage, storageClassOf, volumeCapacity } from '../../machinery/volume-binding.js';
import { parseQuantity } from '../../machinery/quantity.js';
import { HELPER_NAMESPACE, deleteHelperPodName, newDeleteHelperPod, volumeNode } from './helper-pod.js';

/** k3s's provisioner name, so manifests written for k3s's `local-path` class work unchanged. */
export const LOCAL_PATH_PROVISIONER = 'rancher.io/local-path';
export const CLAIM_KEY = 'claim/';
export const VOLUME_KEY = 'volume/';

export interface LocalPathProvisionerOptions {
  client: Client;
  claims: Lister<PersistentVolumeClaim>;
  volumes: Lister<PersistentVolume>;
  classes: Lister<StorageClass>;
  pods: Lister<Pod>;
  /** For the size of the disk on the node a volume would live on. */
  nodes: Lister<Node>;
  recorder: EventRecorder;
  /** The directory on every node volumes are made in. */
  dir: string;
  helperImage: string;
}

/**
 * The built-in local-path provisioner (k3s's `rancher.io/local-path`): for a
 * claim handed to it with a selected node it creates a hostPath PV
 * `<dir>/<pv>_<ns>_<claim>` (type DirectoryOrCreate: the node's kubelet makes
 * the directory when a pod mounts it) with node affinity to that node; a
 * Released volume of reclaim policy Delete has its directory removed by a
 * helper pod on its node, then is deleted; a claim grown in a class that
 * allows expansion grows its volume. Never touches a filesystem itself.
 */
export class LocalPathProvisioner implements Reconciler {
  constructor(private readonly o: LocalPathProvisionerOptions) {}

  async reconcile(key: string): Promise<ReconcileResult | void> {
    if (key.startsWith(CLAIM_KEY)) {
      const rest = key.slice(CLAIM_KEY.length);
      const i = rest.indexOf('/');
      const pvc = this.o.claims.namespace(rest.slice(0, i)).get(rest.slice(i + 1));
      if (pvc) await this.syncClaim(pvc);
      return;
    }
    if (key.startsWith(VOLUME_KEY)) {
      const name = key.slice(VOLUME_KEY.length);
      const pv = this.o.volumes.get(name);
      if (pv) return this.syncVolume(pv);
      await this.removeFinishedHelper(name);
    }
  }

  private classOf(obj: PersistentVolumeClaim | PersistentVolume): StorageClass | undefined {
    const name = storageClassOf(obj);
    const sc = name ? this.o.classes.get(name) : undefined;
    return sc?.provisioner === LOCAL_PATH_PROVISIONER ? sc : undefined;
  }

  private async syncClaim(pvc: PersistentVolumeClaim): Promise<void> {
    if (pvc.metadata?.deletionTimestamp) return;
    const sc = this.classOf(pvc);
    if (!sc) return;
    if (pvc.spec?.volumeName) {
      await this.expand(pvc, sc);
      return;
    }
    const annotations = pvc.metadata?.annotations ?? {};
    const provisioner = annotations[ANN_STORAGE_PROVISIONER] ?? annotations[ANN_BETA_STORAGE_PROVISIONER];
    if (provisioner !== LOCAL_PATH_PROVISIONER) return; // the binder has not handed it over (yet)
    const pvName = `pvc-${pvc.metadata?.uid}`;
    if (this.o.volumes.get(pvName)) return;
    const node = annotations[ANN_SELECTED_NODE];
    const claimKey = `${pvc.metadata?.namespace}/${pvc.metadata?.name}`;
    const unknown = Object.keys(sc.parameters ?? {}).sort();
    if (unknown.length > 0) {
      this.o.recorder.event(pvc, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${sc.metadata?.name}": unsupported parameter ${unknown.map((k) => JSON.stringify(k)).join(', ')}: the built-in local-path provisioner takes no parameters`);
      return;
    }
    if (!node) {
      this.o.recorder.event(pvc, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${sc.metadata?.name}": configuration error, no node was specified`);
      return;
    }
    if (pvc.spec?.selector) {
      this.o.recorder.event(pvc, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${sc.metadata?.name}": claim.Spec.Selector is not supported`);
      return;
    }
    if (pvc.spec?.volumeMode === 'Block') {
      this.o.recorder.event(pvc, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${sc.metadata?.name}": Only support Filesystem volume mode`);
      return;
    }
    const tooBig = this.exceedsNode(pvc, node);
    if (tooBig) {
      this.o.recorder.event(pvc, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${sc.metadata?.name}": ${tooBig}`);
      return;
    }
    this.o.recorder.event(pvc, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${claimKey}"`);
    const path = join(this.o.dir, `${pvName}_${pvc.metadata?.namespace}_${pvc.metadata?.name}`);
    const pv: PersistentVolume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: pvName, annotations: { [ANN_DYNAMICALLY_PROVISIONED]: LOCAL_PATH_PROVISIONER, 'local.path.provisioner/selected-node': node } },
      spec: {
        capacity: { storage: pvc.spec?.resources?.requests?.storage ?? '0' },
        accessModes: pvc.spec?.accessModes,
        persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
        storageClassName: sc.metadata?.name,
        mountOptions: sc.mountOptions,
        volumeMode: 'Filesystem',
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: pvc.metadata?.namespace, name: pvc.metadata?.name, uid: pvc.metadata?.uid, resourceVersion: pvc.metadata?.resourceVersion },
        hostPath: { path, type: 'DirectoryOrCreate' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } },
      },
    };
    try {
      await this.o.client.resource<PersistentVolume>(PERSISTENT_VOLUMES).create(pv);
    } catch (err) {
      if (isAlreadyExists(err)) return;
      this.o.recorder.event(pvc, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${sc.metadata?.name}": ${(err as Error).message}`);
      throw err;
    }
    this.o.recorder.event(pvc, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pvName}`);
  }

  /** Why the claim's request cannot fit on the node (bigger than its whole disk, `status.capacity[ephemeral-storage]`), if it cannot. */
  private exceedsNode(pvc: PersistentVolumeClaim, node: string): string | undefined {
    const disk = this.o.nodes.get(node)?.status?.capacity?.['ephemeral-storage'];
    if (disk === undefined) return undefined;
    let size;
    try {
      size = parseQuantity(disk);
    } catch {
      return undefined;
    }
    if (requestedStorage(pvc).cmp(size) <= 0) return undefined;
    return `requested storage ${pvc.spec?.resources?.requests?.storage} is more than node "${node}" has (ephemeral-storage capacity ${disk})`;
  }

  /** A hostPath volume has no size to grow: recording the new capacity on the volume and the claim is the whole resize. */
  private async expand(pvc: PersistentVolumeClaim, sc: StorageClass): Promise<void> {
    const pv = this.o.volumes.get(pvc.spec?.volumeName ?? '');
    if (!pv || pv.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== LOCAL_PATH_PROVISIONER) return;
    const wanted = requestedStorage(pvc);
    const storage = pvc.spec?.resources?.requests?.storage;
    if (storage === undefined) return;
    if (volumeCapacity(pv).cmp(wanted) < 0) {
      if (!sc.allowVolumeExpansion) return;
      const node = volumeNode(pv);
      const tooBig = node ? this.exceedsNode(pvc, node) : undefined;
      if (tooBig) {
        this.o.recorder.event(pvc, 'Warning', 'VolumeResizeFailed', `resize volume "${pv.metadata?.name}" by resizer "${LOCAL_PATH_PROVISIONER}" failed: ${tooBig}`);
        return;
      }
      this.o.recorder.event(pvc, 'Normal', 'Resizing', `External resizer is resizing volume ${pv.metadata?.name}`);
      await this.o.client.resource<PersistentVolume>(PERSISTENT_VOLUMES).update({ ...pv, spec: { ...pv.spec, capacity: { ...(pv.spec?.capacity ?? {}), storage } } });
      return; // the volume's update brings the claim back for its status
    }
    const status = (pvc as { status?: PersistentVolumeClaimStatus }).status ?? {};
    const current = status.capacity?.storage;
    if (current === pv.spec?.capacity?.storage) return;
    await this.o.client
      .resource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS)
      .namespace(pvc.metadata?.namespace ?? '')
      .updateStatus({ ...pvc, status: { ...status, capacity: { ...(status.capacity ?? {}), storage: pv.spec?.capacity?.storage ?? storage } } } as PersistentVolumeClaim);
    if (current !== undefined) this.o.recorder.event(pvc, 'Normal', 'VolumeResizeSuccessful', 'resize volume successfully');
  }

  /** A helper pod left behind by a sync that deleted its volume but stopped before the pod. */
  private async removeFinishedHelper(pvName: string): Promise<void> {
    const helper = this.o.pods.namespace(HELPER_NAMESPACE).get(deleteHelperPodName(pvName));
    if (!helper || (helper.status?.phase !== 'Succeeded' && helper.status?.phase !== 'Failed')) return;
    await this.o.client.resource<Pod>(PODS).namespace(HELPER_NAMESPACE).delete(helper.metadata?.name ?? '', { preconditions: { uid: helper.metadata?.uid } }).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }

  private async syncVolume(pv: PersistentVolume): Promise<ReconcileResult | void> {
    if (pv.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== LOCAL_PATH_PROVISIONER) return;
    if (pv.status?.phase !== 'Released' || pv.spec?.persistentVolumeReclaimPolicy !== 'Delete' || pv.metadata?.deletionTimestamp) return;
    const name = pv.metadata?.name ?? '';
    const path = pv.spec?.hostPath?.path ?? pv.spec?.local?.path ?? '';
    const node = volumeNode(pv);
    // Only directories this provisioner made are ever removed.
    if (!node || !path.startsWith(`${this.o.dir}/`) || path.slice(this.o.dir.length + 1).includes('/')) {
      this.o.recorder.event(pv, 'Warning', 'VolumeFailedDelete', `failed to delete volume ${name}: the volume's path ${path} or node is not one this provisioner made`);
      return;
    }
    const pods = this.o.client.resource<Pod>(PODS).namespace(HELPER_NAMESPACE);
    const helperName = deleteHelperPodName(name);
    const helper = this.o.pods.namespace(HELPER_NAMESPACE).get(helperName);
    if (!helper) {
      try {
        await pods.create(newDeleteHelperPod(pv, node, this.o.helperImage));
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      return;
    }
    const phase = helper.status?.phase;
    if (phase === 'Failed') {
      this.o.recorder.event(pv, 'Warning', 'VolumeFailedDelete', `failed to delete volume ${name}: helper pod ${helperName} failed; retrying`);
      await pods.delete(helperName, { preconditions: { uid: helper.metadata?.uid } }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
      return { requeueAfter: 10_000 };
    }
    if (phase !== 'Succeeded') return;
    try {
      await this.o.client.resource<PersistentVolume>(PERSISTENT_VOLUMES).delete(name, { preconditions: { uid: pv.metadata?.uid } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    await pods.delete(helperName, { preconditions: { uid: helper.metadata?.uid } }).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
}
