import type { StorageClass } from 'kubernetes-types/storage/v1.js';

/** The annotations that mark a StorageClass as the cluster default (the beta one is still honoured). */
export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
export const BETA_DEFAULT_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';
/** The annotation that predates `storageClassName` and still takes precedence over it. */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** Whether a StorageClass is marked default (either annotation, value "true"). */
export function isDefaultStorageClass(sc: StorageClass): boolean {
  const a = sc.metadata?.annotations ?? {};
  return a[DEFAULT_CLASS_ANNOTATION] === 'true' || a[BETA_DEFAULT_CLASS_ANNOTATION] === 'true';
}

/**
 * The default class upstream picks when several are marked: the newest, and
 * by name when two were created in the same second.
 */
export function pickDefaultStorageClass(classes: readonly StorageClass[]): StorageClass | undefined {
  let best: StorageClass | undefined;
  for (const sc of classes) {
    if (!isDefaultStorageClass(sc)) continue;
    if (!best) {
      best = sc;
      continue;
    }
    const a = sc.metadata?.creationTimestamp ?? '';
    const b = best.metadata?.creationTimestamp ?? '';
    if (a > b || (a === b && (sc.metadata?.name ?? '') < (best.metadata?.name ?? ''))) best = sc;
  }
  return best;
}
