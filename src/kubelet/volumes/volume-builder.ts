import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DownwardAPIVolumeFile, KeyToPath, Pod, Volume } from 'kubernetes-types/core/v1.js';
import { ContainerConfigError, fieldPathValue, resourceFieldValue, type ObjectSource } from '../pod/container-env.js';
import { writeAtomically, type Payload } from './atomic-writer.js';
import { setVolumeOwnership } from './volume-ownership.js';
import { emptyDirMemorySize, mountTmpfs } from './memory-medium.js';

export interface VolumeContext {
  pod: Pod;
  /** The pod's directory on the node, e.g. <root>/pods/<uid>. */
  podDir: string;
  objects: ObjectSource;
  allocatable: Record<string, string>;
  /** PersistentVolumeClaim volumes resolved to their node directories (see resolveClaimPaths). */
  claims?: ReadonlyMap<string, string>;
  /** `medium: Memory` emptyDirs are tmpfs mounts (needs root); without, they are plain directories. */
  mountTmpfs?: boolean;
}

/** Volume name → directory (or file) on the node to mount. */
export type VolumePaths = Map<string, string>;

function keyPayload(data: Record<string, Buffer>, items: readonly KeyToPath[] | undefined, defaultMode: number | undefined, what: string): Payload {
  const out: Payload = new Map();
  if (!items?.length) {
    for (const [k, v] of Object.entries(data)) out.set(k, { data: v, mode: defaultMode });
    return out;
  }
  for (const it of items) {
    const v = data[it.key];
    if (v === undefined) throw new ContainerConfigError(`configured key ${it.key} not found in ${what}`);
    out.set(it.path, { data: v, mode: it.mode ?? defaultMode });
  }
  return out;
}

function downwardPayload(ctx: VolumeContext, items: readonly DownwardAPIVolumeFile[] | undefined, defaultMode?: number): Payload {
  const out: Payload = new Map();
  for (const it of items ?? []) {
    let value = '';
    if (it.fieldRef) value = fieldPathValue(ctx.pod, it.fieldRef.fieldPath);
    else if (it.resourceFieldRef) {
      const c = ctx.pod.spec?.containers.find((x) => x.name === it.resourceFieldRef!.containerName);
      value = resourceFieldValue(c, it.resourceFieldRef.resource, it.resourceFieldRef.divisor, ctx.allocatable);
    }
    out.set(it.path, { data: Buffer.from(value), mode: it.mode ?? defaultMode });
  }
  return out;
}

function configMapData(ctx: VolumeContext, name: string, optional: boolean | undefined): Record<string, Buffer> | undefined {
  const cm = ctx.objects.configMap(ctx.pod.metadata?.namespace ?? 'default', name);
  if (!cm) {
    if (optional) return {};
    throw new ContainerConfigError(`configmap "${name}" not found`);
  }
  const out: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(cm.data ?? {})) out[k] = Buffer.from(v);
  for (const [k, v] of Object.entries(cm.binaryData ?? {})) out[k] = Buffer.from(v, 'base64');
  return out;
}

function secretData(ctx: VolumeContext, name: string, optional: boolean | undefined): Record<string, Buffer> {
  const s = ctx.objects.secret(ctx.pod.metadata?.namespace ?? 'default', name);
  if (!s) {
    if (optional) return {};
    throw new ContainerConfigError(`secret "${name}" not found`);
  }
  const out: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(s.data ?? {})) out[k] = Buffer.from(v, 'base64');
  for (const [k, v] of Object.entries(s.stringData ?? {})) out[k] = Buffer.from(v);
  return out;
}

function payloadFor(v: Volume, ctx: VolumeContext): Payload | undefined {
  if (v.configMap) return keyPayload(configMapData(ctx, v.configMap.name ?? '', v.configMap.optional) ?? {}, v.configMap.items, v.configMap.defaultMode, `ConfigMap ${v.configMap.name}`);
  if (v.secret) return keyPayload(secretData(ctx, v.secret.secretName ?? '', v.secret.optional), v.secret.items, v.secret.defaultMode, `Secret ${v.secret.secretName}`);
  if (v.downwardAPI) return downwardPayload(ctx, v.downwardAPI.items, v.downwardAPI.defaultMode);
  if (v.projected) {
    const out: Payload = new Map();
    for (const src of v.projected.sources ?? []) {
      let part: Payload = new Map();
      if (src.configMap) part = keyPayload(configMapData(ctx, src.configMap.name ?? '', src.configMap.optional) ?? {}, src.configMap.items, v.projected.defaultMode, `ConfigMap ${src.configMap.name}`);
      else if (src.secret) part = keyPayload(secretData(ctx, src.secret.name ?? '', src.secret.optional), src.secret.items, v.projected.defaultMode, `Secret ${src.secret.name}`);
      else if (src.downwardAPI) part = downwardPayload(ctx, src.downwardAPI.items, v.projected.defaultMode);
      else if (src.serviceAccountToken) {
        const token = ctx.objects.serviceAccountToken?.(ctx.pod, src.serviceAccountToken);
        if (token === undefined) throw new ContainerConfigError(`failed to fetch token for service account "${ctx.pod.spec?.serviceAccountName ?? 'default'}"`);
        part = new Map([[src.serviceAccountToken.path, { data: Buffer.from(token), mode: v.projected.defaultMode }]]);
      }
      for (const [k, f] of part) out.set(k, f);
    }
    return out;
  }
  return undefined;
}

/**
 * Materializes the pod's volumes under its pod dir (or on the host for
 * hostPath) and returns where each lives. Calling it again refreshes
 * configMap/secret/downwardAPI/projected contents atomically, which is how
 * those volumes follow changes to their sources.
 */
export function setUpVolumes(ctx: VolumeContext): VolumePaths {
  const paths: VolumePaths = new Map();
  for (const v of ctx.pod.spec?.volumes ?? []) {
    if (v.hostPath) {
      const type = v.hostPath.type ?? '';
      if (type === 'DirectoryOrCreate') mkdirSync(v.hostPath.path, { recursive: true });
      paths.set(v.name, v.hostPath.path);
      continue;
    }
    const claimed = v.persistentVolumeClaim ? ctx.claims?.get(v.name) : undefined;
    if (claimed !== undefined) {
      paths.set(v.name, claimed);
      continue;
    }
    const plugin = v.emptyDir ? 'empty-dir' : v.configMap ? 'configmap' : v.secret ? 'secret' : v.downwardAPI ? 'downward-api' : v.projected ? 'projected' : undefined;
    if (!plugin) continue; // unsupported volume types are skipped rather than blocking the pod
    const dir = join(ctx.podDir, 'volumes', `kubernetes.io~${plugin}`, v.name);
    let changed: boolean;
    if (v.emptyDir) {
      changed = !existsSync(dir);
      mkdirSync(dir, { recursive: true });
      // a tmpfs sized as upstream's (sizeLimit, the pod's memory cap, node allocatable): writing past it fails with ENOSPC
      if (v.emptyDir.medium === 'Memory' && ctx.mountTmpfs) {
        try {
          mountTmpfs(dir, emptyDirMemorySize(v, ctx.pod, ctx.allocatable));
        } catch (err) {
          throw new ContainerConfigError(`mounting the memory-backed emptyDir ${v.name} failed: ${(err as { stderr?: Buffer }).stderr?.toString().trim() || String(err)}`);
        }
      }
      // every user of the pod may write there, whatever the kubelet's umask (upstream's emptyDir is 0777)
      if (changed) chmodSync(dir, 0o777);
    } else changed = writeAtomically(dir, payloadFor(v, ctx)!);
    // the pod's fsGroup owns what it may write (emptyDir) and read (the rest), as upstream's SetVolumeOwnership
    const fsGroup = ctx.pod.spec?.securityContext?.fsGroup;
    if (fsGroup !== undefined && changed) setVolumeOwnership(dir, fsGroup, !v.emptyDir, ctx.pod.spec?.securityContext?.fsGroupChangePolicy);
    paths.set(v.name, dir);
  }
  return paths;
}
