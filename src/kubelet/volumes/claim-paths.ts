import { mkdirSync, statSync } from 'node:fs';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../client/rest/client.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import { PERSISTENT_VOLUMES, PERSISTENT_VOLUME_CLAIMS } from '../../api/resource-refs.js';

/** A claim the pod mounts is not usable yet (unbound, volume missing): the pod waits in ContainerCreating. */
export class VolumeNotReadyError extends Error {
  override readonly name = 'VolumeNotReadyError';
}

/**
 * Upstream's desired-state populator for PVC volumes: claim → bound volume →
 * the directory on this node (hostPath, created when its type is
 * DirectoryOrCreate, as the local-path provisioner's volumes are; or a
 * `local` path, which must exist). Read through the API (the Node
 * authorizer lets a kubelet get the claims and volumes of its pods).
 */
export async function resolveClaimPaths(pod: Pod, client: Client): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const ns = pod.metadata?.namespace ?? 'default';
  for (const v of pod.spec?.volumes ?? []) {
    const claimName = v.persistentVolumeClaim?.claimName;
    if (!claimName) continue;
    const pvc = await getOrUndefined(client.resource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS).namespace(ns).get(claimName));
    if (!pvc) throw new VolumeNotReadyError(`error processing PVC ${ns}/${claimName}: PVC ${ns}/${claimName} not found`);
    const phase = (pvc as { status?: { phase?: string } }).status?.phase;
    const pvName = pvc.spec?.volumeName ?? '';
    if (phase !== 'Bound' || !pvName) {
      throw new VolumeNotReadyError(`error processing PVC ${ns}/${claimName}: PVC ${ns}/${claimName} has non-bound phase ("${phase ?? ''}") or empty pvc.Spec.VolumeName ("${pvName}")`);
    }
    const pv = await getOrUndefined(client.resource<PersistentVolume>(PERSISTENT_VOLUMES).get(pvName));
    if (!pv) throw new VolumeNotReadyError(`error processing PVC ${ns}/${claimName}: failed to fetch PV ${pvName} from API server: persistentvolumes "${pvName}" not found`);
    if (pv.spec?.claimRef?.uid && pv.spec.claimRef.uid !== pvc.metadata?.uid) {
      throw new VolumeNotReadyError(`error processing PVC ${ns}/${claimName}: PV ${pvName} is bound to another claim`);
    }
    out.set(v.name, volumePath(pv));
  }
  return out;
}

function volumePath(pv: PersistentVolume): string {
  const name = pv.metadata?.name ?? '';
  if (pv.spec?.hostPath) {
    const { path, type = '' } = pv.spec.hostPath;
    if (type === 'DirectoryOrCreate') mkdirSync(path, { recursive: true, mode: 0o777 });
    else if (type === 'Directory' && !isDirectory(path)) throw new VolumeNotReadyError(`MountVolume.SetUp failed for volume "${name}" : hostPath type check failed: ${path} is not a directory`);
    return path;
  }
  if (pv.spec?.local) {
    if (!isDirectory(pv.spec.local.path)) throw new VolumeNotReadyError(`MountVolume.NewMounter initialization failed for volume "${name}" : path "${pv.spec.local.path}" does not exist`);
    return pv.spec.local.path;
  }
  throw new VolumeNotReadyError(`MountVolume.SetUp failed for volume "${name}" : skiff mounts only hostPath and local persistent volumes`);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function getOrUndefined<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
