import type { PodSpec, SeccompProfile, SecurityContext } from 'kubernetes-types/core/v1.js';
import { child, duplicate, index, invalid, notSupported, required, type ErrorList } from './errors.js';
import { inclusiveRangeError } from './name.js';

const MAX_ID = 2147483647;
const SECCOMP_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];
const PROC_MOUNT_TYPES = ['Default', 'Unmasked'];
const SYSCTL_NAME = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;

/** upstream's IsValidUserID / IsValidGroupID. */
function validId(value: number | undefined, path: string): ErrorList {
  return value !== undefined && (!Number.isInteger(value) || value < 0 || value > MAX_ID) ? [invalid(path, value, inclusiveRangeError(0, MAX_ID))] : [];
}

/** upstream's validateSeccompProfileField: Localhost needs a relative profile path, the others none. */
function validateSeccompProfile(p: SeccompProfile | undefined, path: string): ErrorList {
  if (!p) return [];
  const errs: ErrorList = [];
  if (!SECCOMP_TYPES.includes(p.type)) errs.push(notSupported(child(path, 'type'), p.type, SECCOMP_TYPES));
  if (p.type === 'Localhost') {
    if (!p.localhostProfile) errs.push(required(child(path, 'localhostProfile'), 'must be set when seccomp type is Localhost'));
    else if (p.localhostProfile.startsWith('/')) errs.push(invalid(child(path, 'localhostProfile'), p.localhostProfile, 'must be a relative path'));
    else if (p.localhostProfile.split('/').includes('..')) errs.push(invalid(child(path, 'localhostProfile'), p.localhostProfile, "must not contain '..'"));
  } else if (p.localhostProfile !== undefined) {
    errs.push(invalid(child(path, 'localhostProfile'), p.localhostProfile, 'can only be set when seccomp type is Localhost'));
  }
  return errs;
}

/** upstream's ValidateSecurityContext for one container. */
export function validateSecurityContext(sc: SecurityContext | undefined, path: string): ErrorList {
  if (!sc) return [];
  const errs: ErrorList = [...validId(sc.runAsUser, child(path, 'runAsUser')), ...validId(sc.runAsGroup, child(path, 'runAsGroup'))];
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged) errs.push(invalid(path, sc, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    if (sc.capabilities?.add?.includes('CAP_SYS_ADMIN')) errs.push(invalid(path, sc, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
  }
  if (sc.procMount !== undefined && !PROC_MOUNT_TYPES.includes(sc.procMount)) errs.push(notSupported(child(path, 'procMount'), sc.procMount, PROC_MOUNT_TYPES));
  errs.push(...validateSeccompProfile(sc.seccompProfile, child(path, 'seccompProfile')));
  return errs;
}

/** upstream's ValidatePodSecurityContext with the host namespace rules of the pod spec. */
export function validatePodSecurityContext(spec: PodSpec, specPath: string): ErrorList {
  const errs: ErrorList = [];
  const path = child(specPath, 'securityContext');
  if (spec.hostNetwork) {
    (spec.containers ?? []).forEach((c, ci) => (c.ports ?? []).forEach((p, pi) => {
      if (p.hostPort !== p.containerPort) errs.push(invalid(child(index(child(index(child(specPath, 'containers'), ci), 'ports'), pi), 'containerPort'), p.containerPort, 'must match `hostPort` when `hostNetwork` is true'));
    }));
  }
  if (spec.shareProcessNamespace && spec.hostPID) errs.push(invalid(child(path, 'shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  const sc = spec.securityContext;
  if (!sc) return errs;
  errs.push(...validId(sc.fsGroup, child(path, 'fsGroup')), ...validId(sc.runAsUser, child(path, 'runAsUser')), ...validId(sc.runAsGroup, child(path, 'runAsGroup')));
  (sc.supplementalGroups ?? []).forEach((g, i) => errs.push(...validId(g, index(child(path, 'supplementalGroups'), i))));
  if (sc.fsGroupChangePolicy !== undefined && !['OnRootMismatch', 'Always'].includes(sc.fsGroupChangePolicy)) {
    errs.push(notSupported(child(path, 'fsGroupChangePolicy'), sc.fsGroupChangePolicy, ['OnRootMismatch', 'Always']));
  }
  const seen = new Set<string>();
  (sc.sysctls ?? []).forEach((s, i) => {
    const p = index(child(path, 'sysctls'), i);
    if (!s.name) errs.push(required(child(p, 'name')));
    else if (s.name.length > 253 || !SYSCTL_NAME.test(s.name.replaceAll('/', '.'))) {
      errs.push(invalid(child(p, 'name'), s.name, `must have at most 253 characters and match regex ${SYSCTL_NAME.source}`));
    } else if (seen.has(s.name.replaceAll('/', '.'))) errs.push(duplicate(child(p, 'name'), s.name));
    seen.add(s.name.replaceAll('/', '.'));
  });
  errs.push(...validateSeccompProfile(sc.seccompProfile, child(path, 'seccompProfile')));
  return errs;
}
