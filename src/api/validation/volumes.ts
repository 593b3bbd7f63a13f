import type { KeyToPath, Volume } from 'kubernetes-types/core/v1.js';
import { child, duplicate, forbidden, index, invalid, notSupported, required, type ErrorList } from './errors.js';
import { validateDNS1123Label, validateLocalDescendingPath } from './container.js';
import { validateNonnegativeQuantity } from './quantity.js';

const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';
export const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

/** Every volume source member of a v1 VolumeSource / PersistentVolumeSource, in upstream's check order. */
const SOURCE_FIELDS = [
  'hostPath', 'emptyDir', 'gitRepo', 'gcePersistentDisk', 'awsElasticBlockStore', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile',
  'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO',
  'storageos', 'csi', 'ephemeral', 'image', 'local',
] as const;

function validateFileMode(mode: number | undefined, path: string): ErrorList {
  return mode !== undefined && (mode < 0 || mode > 0o777) ? [invalid(path, mode, FILE_MODE_ERROR)] : [];
}

function validateKeyToPaths(items: KeyToPath[] | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  (items ?? []).forEach((item, i) => {
    const p = index(path, i);
    if (!item.key) errs.push(required(child(p, 'key')));
    if (!item.path) errs.push(required(child(p, 'path')));
    else errs.push(...validateLocalDescendingPath(item.path, child(p, 'path')));
    errs.push(...validateFileMode(item.mode, child(p, 'mode')));
  });
  return errs;
}

/** The source checks shared by pod volumes and persistent volumes (`src` is VolumeSource-like). */
export function validateVolumeSource(src: Record<string, unknown>, path: string): ErrorList {
  const errs: ErrorList = [];
  const present = SOURCE_FIELDS.filter((f) => src[f] !== undefined && src[f] !== null);
  if (present.length === 0) {
    errs.push(required(path, 'must specify a volume type'));
    return errs;
  }
  for (const extra of present.slice(1)) errs.push(forbidden(child(path, extra), 'may not specify more than 1 volume type'));
  const kind = present[0];
  const p = child(path, kind);
  const v = src[kind] as Record<string, unknown>;
  switch (kind) {
    case 'hostPath': {
      if (!v.path) errs.push(required(child(p, 'path')));
      const t = v.type as string | undefined;
      if (t !== undefined && !HOST_PATH_TYPES.includes(t)) errs.push(notSupported(child(p, 'type'), t, HOST_PATH_TYPES));
      break;
    }
    case 'emptyDir':
      if (v.sizeLimit !== undefined) errs.push(...validateNonnegativeQuantity(v.sizeLimit, child(p, 'sizeLimit')));
      if (v.medium && !['', 'Memory', 'HugePages'].includes(v.medium as string) && !(v.medium as string).startsWith('HugePages-')) {
        errs.push(notSupported(child(p, 'medium'), v.medium, ['', 'Memory', 'HugePages']));
      }
      break;
    case 'secret':
      if (!v.secretName) errs.push(required(child(p, 'secretName')));
      errs.push(...validateFileMode(v.defaultMode as number | undefined, child(p, 'defaultMode')));
      errs.push(...validateKeyToPaths(v.items as KeyToPath[] | undefined, child(p, 'items')));
      break;
    case 'configMap':
      if (!v.name) errs.push(required(child(p, 'name')));
      errs.push(...validateFileMode(v.defaultMode as number | undefined, child(p, 'defaultMode')));
      errs.push(...validateKeyToPaths(v.items as KeyToPath[] | undefined, child(p, 'items')));
      break;
    case 'persistentVolumeClaim':
      if (!v.claimName) errs.push(required(child(p, 'claimName')));
      break;
    case 'downwardAPI':
      errs.push(...validateFileMode(v.defaultMode as number | undefined, child(p, 'defaultMode')));
      break;
    case 'nfs':
      if (!v.server) errs.push(required(child(p, 'server')));
      if (!v.path) errs.push(required(child(p, 'path')));
      else if (!(v.path as string).startsWith('/')) errs.push(invalid(child(p, 'path'), v.path, 'must be an absolute path'));
      break;
    case 'local':
      if (!v.path) errs.push(required(child(p, 'path')));
      break;
    case 'csi':
      if (!v.driver) errs.push(required(child(p, 'driver')));
      break;
    default:
      break;
  }
  return errs;
}

/** Upstream's ValidateVolumes: names are unique DNS labels and each volume has exactly one source. */
export function validateVolumes(volumes: Volume[] | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  const names = new Set<string>();
  (volumes ?? []).forEach((vol, i) => {
    const p = index(path, i);
    const namePath = child(p, 'name');
    errs.push(...validateVolumeSource(vol as unknown as Record<string, unknown>, p));
    if (!vol.name) errs.push(required(namePath));
    else errs.push(...validateDNS1123Label(vol.name, namePath));
    if (names.has(vol.name)) errs.push(duplicate(namePath, vol.name));
    names.add(vol.name);
  });
  return errs;
}
