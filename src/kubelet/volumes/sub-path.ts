import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { VolumeMount } from 'kubernetes-types/core/v1.js';
import { ContainerConfigError, expandVars } from '../pod/container-env.js';
import type { VolumePaths } from './volume-builder.js';

export interface HostMount {
  containerPath: string;
  hostPath: string;
  readOnly?: boolean;
}

/**
 * The container's mounts on the node, as upstream's makeMounts: a mount's
 * `subPath`, or its `subPathExpr` expanded with the container's environment
 * (`$(POD_NAME)`), picks a directory inside the volume, made (with the
 * volume's own mode) when missing. An expanded path that is absolute or
 * climbs out with `..` is refused, as upstream refuses it.
 */
export function subPathMounts(mounts: readonly VolumeMount[], volumes: VolumePaths, env: Readonly<Record<string, string>>): HostMount[] {
  return mounts.flatMap((m) => {
    const host = volumes.get(m.name);
    if (!host) return [];
    const sub = m.subPathExpr ? expandVars(m.subPathExpr, env) : m.subPath;
    if (!sub) return [{ containerPath: m.mountPath, hostPath: host, readOnly: m.readOnly }];
    if (isAbsolute(sub)) throw new ContainerConfigError(`failed to prepare subPath for volumeMount "${m.name}": subpath "${sub}" must be a relative path`);
    if (sub.split('/').includes('..')) throw new ContainerConfigError(`failed to prepare subPath for volumeMount "${m.name}": subpath "${sub}" must not contain '..'`);
    const path = join(host, sub);
    try {
      // an existing path (a ConfigMap key's file, a directory made before) is used as it is
      if (!existsSync(path) && statSync(host).isDirectory()) {
        mkdirSync(path, { recursive: true });
        chmodSync(path, statSync(host).mode & 0o7777);
      }
    } catch (err) {
      throw new ContainerConfigError(`failed to create subPath directory for volumeMount "${m.name}": ${err instanceof Error ? err.message : String(err)}`);
    }
    return [{ containerPath: m.mountPath, hostPath: path, readOnly: m.readOnly }];
  });
}
