import type { PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { allContainers, ALLOWED, containersPhrase, denied, isWindows, joinQuote, pluralize, settersPhrase, sortedSet, type CheckPod, type CheckResult } from './check.js';
import { seccompSetters } from './checks-baseline.js';

/*
 * The restricted controls of the Pod Security Standards, with upstream's
 * reasons and details (k8s.io/pod-security-admission/policy).
 */

/** From v1.25 the Linux-only controls do not apply to Windows pods. */
export function exceptWindows(check: CheckPod): CheckPod {
  return (meta, spec) => (isWindows(spec) ? ALLOWED : check(meta, spec));
}

export function allowPrivilegeEscalation(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad = allContainers(spec).filter((c) => c.securityContext?.allowPrivilegeEscalation !== false).map((c) => c.name);
  return bad.length === 0 ? ALLOWED : denied('allowPrivilegeEscalation != false', `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`);
}

export function capabilitiesRestricted(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const missingDrop: string[] = [];
  const adding: string[] = [];
  const caps: string[] = [];
  for (const c of allContainers(spec)) {
    const capabilities = c.securityContext?.capabilities;
    if (!capabilities) {
      missingDrop.push(c.name);
      continue;
    }
    if (!(capabilities.drop ?? []).includes('ALL')) missingDrop.push(c.name);
    const extra = (capabilities.add ?? []).filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (extra.length > 0) {
      adding.push(c.name);
      caps.push(...extra);
    }
  }
  const details: string[] = [];
  if (missingDrop.length > 0) details.push(`${containersPhrase(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length > 0) details.push(`${containersPhrase(adding)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
  return details.length === 0 ? ALLOWED : denied('unrestricted capabilities', details.join('; '));
}

/** Volume sources the restricted level allows. */
const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'];
const RESTRICTED_VOLUME_TYPES = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'fc',
  'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos',
];

export function restrictedVolumes(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const v of spec.volumes ?? []) {
    const sources = v as unknown as Record<string, unknown>;
    if (ALLOWED_VOLUME_SOURCES.some((s) => sources[s] != null)) continue;
    bad.push(v.name);
    types.push(RESTRICTED_VOLUME_TYPES.find((t) => sources[t] != null) ?? 'unknown');
  }
  if (bad.length === 0) return ALLOWED;
  const unique = sortedSet(types);
  return denied(
    'restricted volume types',
    `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', unique.length)} ${joinQuote(unique)}`,
  );
}

export function runAsNonRoot(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const podValue = spec.securityContext?.runAsNonRoot;
  const podBad = podValue === false;
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of allContainers(spec)) {
    const own = c.securityContext?.runAsNonRoot;
    if (own !== undefined) {
      if (own === false) explicit.push(c.name);
    } else if (podValue !== true) implicit.push(c.name);
  }
  if (podBad || explicit.length > 0) return denied('runAsNonRoot != true', `${settersPhrase(podBad, explicit)} must not set securityContext.runAsNonRoot=false`);
  if (implicit.length === 0) return ALLOWED;
  return denied('runAsNonRoot != true', `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true`);
}

export function runAsUser(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const podBad = spec.securityContext?.runAsUser === 0;
  const bad = allContainers(spec).filter((c) => c.securityContext?.runAsUser === 0).map((c) => c.name);
  if (!podBad && bad.length === 0) return ALLOWED;
  return denied('runAsUser=0', `${settersPhrase(podBad, bad)} must not set runAsUser=0`);
}

export function seccompProfileRestricted(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const { podBad, bad, unset, values } = seccompSetters(spec);
  if (podBad || bad.length > 0) return denied('seccompProfile', `${settersPhrase(podBad, bad)} must not set securityContext.seccompProfile.type to ${joinQuote(values)}`);
  if (unset.length === 0) return ALLOWED;
  return denied('seccompProfile', `pod or ${containersPhrase(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
}
