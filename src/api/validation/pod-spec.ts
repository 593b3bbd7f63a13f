import type { Container, PodSpec, PodTemplateSpec, Toleration } from 'kubernetes-types/core/v1.js';
import { child, index, invalid, notFound, notSupported, required, type ErrorList } from './errors.js';
import { validateContainer, validateDNS1123Label, validateHostPortConflicts } from './container.js';
import { isDNS1123Subdomain, isValidLabelValue, inclusiveRangeError } from './name.js';
import { validateAnnotations, validateLabelName, validateLabels } from './object-meta.js';
import { validateVolumes } from './volumes.js';
import { validatePodSecurityContext } from './security-context.js';

export const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const MAX_INT32 = 2147483647;

export function validateTaintEffect(effect: string | undefined, allowEmpty: boolean, path: string): ErrorList {
  if (!effect) return allowEmpty ? [] : [required(path)];
  return TAINT_EFFECTS.includes(effect) ? [] : [notSupported(path, effect, TAINT_EFFECTS)];
}

export function validateTolerations(tolerations: Toleration[] | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  (tolerations ?? []).forEach((t, i) => {
    const p = index(path, i);
    if (t.key) errs.push(...validateLabelName(t.key, child(p, 'key')));
    if (!t.key && t.operator !== 'Exists') {
      errs.push(invalid(child(p, 'operator'), t.operator ?? '', 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      errs.push(invalid(child(p, 'effect'), t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (t.operator ?? '') {
      case 'Equal':
      case '':
        for (const m of isValidLabelValue(t.value ?? '')) errs.push(invalid(child(p, 'operator'), t, m));
        break;
      case 'Exists':
        if (t.value) errs.push(invalid(child(p, 'operator'), t, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(notSupported(child(p, 'operator'), t.operator, ['Equal', 'Exists']));
    }
    errs.push(...validateTaintEffect(t.effect, true, child(p, 'effect')));
  });
  return errs;
}

/** Upstream's ValidatePodSpec, covering the commonly used fields. */
export function validatePodSpec(spec: PodSpec | undefined, path: string): ErrorList {
  const s: PodSpec = spec ?? ({ containers: [] } as PodSpec);
  const errs: ErrorList = [];
  const volumes = s.volumes ?? [];
  errs.push(...validateVolumes(volumes, child(path, 'volumes')));
  const names = new Set<string>();
  const containersPath = child(path, 'containers');
  if (!s.containers?.length) errs.push(required(containersPath));
  (s.containers ?? []).forEach((c, i) => errs.push(...validateContainer(c, 'container', volumes, names, index(containersPath, i))));
  errs.push(...validateHostPortConflicts(s.containers ?? [], containersPath));
  const initPath = child(path, 'initContainers');
  (s.initContainers ?? []).forEach((c, i) => errs.push(...validateContainer(c, 'init', volumes, names, index(initPath, i))));
  errs.push(...validateHostPortConflicts(s.initContainers ?? [], initPath));
  const ephPath = child(path, 'ephemeralContainers');
  const targets = new Set([...(s.containers ?? []), ...(s.initContainers ?? [])].map((c) => c.name));
  (s.ephemeralContainers ?? []).forEach((c, i) => {
    errs.push(...validateContainer(c as Container, 'ephemeral', volumes, names, index(ephPath, i)));
    // the target must be a regular or init container
    if (c.targetContainerName && !targets.has(c.targetContainerName)) errs.push(notFound(child(index(ephPath, i), 'targetContainerName'), c.targetContainerName));
  });

  if (!s.restartPolicy) errs.push(required(child(path, 'restartPolicy')));
  else if (!RESTART_POLICIES.includes(s.restartPolicy)) errs.push(notSupported(child(path, 'restartPolicy'), s.restartPolicy, RESTART_POLICIES));
  if (!s.dnsPolicy) errs.push(required(child(path, 'dnsPolicy')));
  else if (!DNS_POLICIES.includes(s.dnsPolicy)) errs.push(notSupported(child(path, 'dnsPolicy'), s.dnsPolicy, DNS_POLICIES));
  if (s.dnsPolicy === 'None' && !s.dnsConfig) {
    errs.push(required(child(path, 'dnsConfig'), 'must provide `dnsConfig` when `dnsPolicy` is None'));
  }
  errs.push(...validateLabels(s.nodeSelector, child(path, 'nodeSelector')));
  for (const f of ['serviceAccountName', 'nodeName'] as const) {
    const v = s[f];
    if (v) for (const m of isDNS1123Subdomain(v)) errs.push(invalid(child(path, f), v, m));
  }
  if (s.activeDeadlineSeconds !== undefined && (s.activeDeadlineSeconds < 1 || s.activeDeadlineSeconds > MAX_INT32)) {
    errs.push(invalid(child(path, 'activeDeadlineSeconds'), s.activeDeadlineSeconds, inclusiveRangeError(1, MAX_INT32)));
  }
  if (s.hostname) errs.push(...validateDNS1123Label(s.hostname, child(path, 'hostname')));
  if (s.subdomain) errs.push(...validateDNS1123Label(s.subdomain, child(path, 'subdomain')));
  errs.push(...validateTolerations(s.tolerations, child(path, 'tolerations')));
  errs.push(...validatePodSecurityContext(s, path));
  (s.imagePullSecrets ?? []).forEach((ref, i) => {
    if (!ref.name) errs.push(required(child(index(child(path, 'imagePullSecrets'), i), 'name')));
  });
  if (s.priorityClassName) for (const m of isDNS1123Subdomain(s.priorityClassName)) errs.push(invalid(child(path, 'priorityClassName'), s.priorityClassName, m));
  if (s.os?.name !== undefined && !['linux', 'windows'].includes(s.os.name)) errs.push(notSupported(child(path, 'os', 'name'), s.os.name, ['linux', 'windows']));
  return errs;
}

/** Upstream's ValidatePodTemplateSpec: template labels/annotations and the pod spec. */
export function validatePodTemplateSpec(template: PodTemplateSpec | undefined, path: string): ErrorList {
  if (!template) return [required(path)];
  const errs: ErrorList = [];
  errs.push(...validateLabels(template.metadata?.labels, child(path, 'labels')));
  errs.push(...validateAnnotations(template.metadata?.annotations, child(path, 'annotations')));
  errs.push(...validatePodSpec(template.spec, child(path, 'spec')));
  return errs;
}
