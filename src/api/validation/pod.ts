import type { Container, Pod, PodSpec, Toleration } from 'kubernetes-types/core/v1.js';
import { child, deepEqual, forbidden, index, invalid, required, type ErrorList } from './errors.js';
import { inclusiveRangeError, nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';
import { validatePodSpec, validateTolerations } from './pod-spec.js';

const MAX_INT32 = 2147483647;

export const POD_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** Create rules; on update (`old` given) they check the new pod, whose ephemeral containers came through the subresource. */
export function validatePod(pod: Pod, old?: Pod): ErrorList {
  const errs = validateObjectMeta(pod.metadata, true, nameIsDNSSubdomain);
  errs.push(...validatePodSpec(pod.spec, 'spec'));
  if (!old && pod.spec?.ephemeralContainers?.length) errs.push(forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  return errs;
}

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/**
 * pods/ephemeralcontainers (upstream's ValidatePodEphemeralContainersUpdate):
 * the pod stays valid, static pods get none, and ephemeral containers are
 * only ever added: existing ones may neither be removed nor changed.
 */
export function validatePodEphemeralContainersUpdate(pod: Pod, old: Pod): ErrorList {
  const errs = [...validateObjectMetaUpdate(pod.metadata, old.metadata), ...validatePod(pod, old)];
  if (old.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return [forbidden('', 'static pods do not support ephemeral containers')];
  const next = new Map((pod.spec?.ephemeralContainers ?? []).map((c) => [c.name, c]));
  for (const prev of old.spec?.ephemeralContainers ?? []) {
    const now = next.get(prev.name);
    if (!now) errs.push(forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(prev.name)} may not be removed\n`));
    else if (!deepEqual(prev, now)) {
      errs.push(forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(prev.name)} may not be changed\n${specDiff(prev as unknown as PodSpec, now as unknown as PodSpec)}`));
    }
  }
  return errs;
}

/** Returns true when the caller should stop: upstream skips the rest when containers were added or removed. */
function validateContainerUpdates(next: Container[], prev: Container[], path: string, errs: ErrorList): boolean {
  if (next.length !== prev.length) {
    errs.push(forbidden(path, 'pod updates may not add or remove containers'));
    return true;
  }
  next.forEach((c, i) => {
    if (!c.image) errs.push(required(child(index(path, i), 'image')));
  });
  return false;
}

function validateOnlyAddedTolerations(next: Toleration[], prev: Toleration[], path: string): ErrorList {
  for (const old of prev) {
    // tolerationSeconds may change, so compare with it taken from each candidate.
    const found = next.some((t) => deepEqual({ ...old, tolerationSeconds: t.tolerationSeconds }, t));
    if (!found) return [forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(next, path);
}

/** A short line-per-field rendering of what changed, in place of upstream's cmp.Diff. */
function specDiff(prev: PodSpec, next: PodSpec): string {
  const keys = [...new Set([...Object.keys(prev), ...Object.keys(next)])].sort();
  const lines: string[] = [];
  for (const k of keys) {
    const a = (prev as unknown as Record<string, unknown>)[k];
    const b = (next as unknown as Record<string, unknown>)[k];
    if (deepEqual(a, b)) continue;
    if (a !== undefined) lines.push(`- ${k}: ${JSON.stringify(a)}`);
    if (b !== undefined) lines.push(`+ ${k}: ${JSON.stringify(b)}`);
  }
  return lines.join('\n');
}

/** The update-only rules (create validation and metadata update checks are added by the caller). */
export function validatePodUpdate(pod: Pod, old: Pod): ErrorList {
  const errs: ErrorList = [];
  const next = pod.spec ?? ({ containers: [] } as PodSpec);
  const prev = old.spec ?? ({ containers: [] } as PodSpec);
  if (validateContainerUpdates(next.containers ?? [], prev.containers ?? [], 'spec.containers', errs)) return errs;
  if (validateContainerUpdates(next.initContainers ?? [], prev.initContainers ?? [], 'spec.initContainers', errs)) return errs;

  const ads = next.activeDeadlineSeconds;
  if (ads !== undefined) {
    if (ads < 0 || ads > MAX_INT32) {
      errs.push(invalid('spec.activeDeadlineSeconds', ads, inclusiveRangeError(0, MAX_INT32)));
      return errs;
    }
    if (prev.activeDeadlineSeconds !== undefined && prev.activeDeadlineSeconds < ads) {
      errs.push(invalid('spec.activeDeadlineSeconds', ads, 'must be less than or equal to previous value'));
      return errs;
    }
  } else if (prev.activeDeadlineSeconds !== undefined) {
    errs.push(invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(next.tolerations ?? [], prev.tolerations ?? [], 'spec.tolerations'));
  if (deepEqual(next, prev)) return errs;

  // Overlay the mutable fields from the old spec; anything still different is forbidden.
  const munged: PodSpec = {
    ...next,
    containers: (next.containers ?? []).map((c, i) => ({ ...c, image: prev.containers[i].image })),
    tolerations: prev.tolerations,
    activeDeadlineSeconds: prev.activeDeadlineSeconds,
  };
  if (next.initContainers) munged.initContainers = next.initContainers.map((c, i) => ({ ...c, image: prev.initContainers?.[i]?.image ?? c.image }));
  if ((prev.terminationGracePeriodSeconds ?? 0) < 0 && next.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = prev.terminationGracePeriodSeconds;
  }
  if (!deepEqual(munged, prev)) errs.push(forbidden('spec', `${POD_UPDATE_FORBIDDEN}\n${specDiff(prev, munged)}`));
  return errs;
}
