import { join } from 'node:path';
import type { Container, Pod, PodSecurityContext, SeccompProfile as ApiSeccompProfile, SecurityContext } from 'kubernetes-types/core/v1.js';
import type { ContainerSecurity, PodNamespaces, PortMapping, SandboxLinux, SeccompProfile } from '../runtime/runtime.js';
import { ContainerConfigError } from './container-env.js';

/**
 * What the runtime hides under /proc and /sys (upstream's defaults, kept in
 * step with moby's) unless a container asks for `procMount: Unmasked`.
 */
export const DEFAULT_MASKED_PATHS: readonly string[] = [
  '/proc/asound', '/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list', '/proc/timer_stats',
  '/proc/sched_debug', '/proc/scsi', '/sys/firmware', '/sys/devices/virtual/powercap',
];
export const DEFAULT_READONLY_PATHS: readonly string[] = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

export interface SecurityOptions {
  /** Where Localhost seccomp profiles live (upstream: `<root-dir>/seccomp`). */
  seccompProfileRoot: string;
  /** `--seccomp-default`: containers without a profile get RuntimeDefault instead of Unconfined. */
  seccompDefault?: boolean;
}

/** upstream's NamespacesForPod: host namespaces when asked, one PID namespace per pod with shareProcessNamespace. */
export function podNamespaces(pod: Pod): PodNamespaces {
  const s = pod.spec;
  return {
    network: s?.hostNetwork ? 'Node' : 'Pod',
    pid: s?.hostPID ? 'Node' : s?.shareProcessNamespace ? 'Pod' : 'Container',
    ipc: s?.hostIPC ? 'Node' : 'Pod',
  };
}

/** fsGroup, then supplementalGroups, as upstream orders the groups it hands the runtime. */
function podGroups(sc: PodSecurityContext | undefined): number[] | undefined {
  const groups = [...(sc?.fsGroup !== undefined ? [sc.fsGroup] : []), ...(sc?.supplementalGroups ?? [])];
  return groups.length ? groups : undefined;
}

function allContainers(pod: Pod): SecurityContext[] {
  const s = pod.spec;
  return [...(s?.initContainers ?? []), ...(s?.containers ?? []), ...(s?.ephemeralContainers ?? [])].flatMap((c) => (c.securityContext ? [c.securityContext] : []));
}

/** upstream's generatePodSandboxLinuxConfig: the pod's namespaces, sysctls, user and groups; privileged when any container is. */
export function sandboxLinux(pod: Pod, cgroupParent?: string): SandboxLinux {
  const sc = pod.spec?.securityContext;
  const sysctls = Object.fromEntries((sc?.sysctls ?? []).map((s) => [s.name, s.value]));
  const groups = podGroups(sc);
  return {
    ...(cgroupParent ? { cgroupParent } : {}),
    namespaces: podNamespaces(pod),
    ...(Object.keys(sysctls).length ? { sysctls } : {}),
    privileged: allContainers(pod).some((c) => c.privileged === true),
    ...(sc?.runAsUser !== undefined ? { runAsUser: sc.runAsUser } : {}),
    ...(sc?.runAsGroup !== undefined ? { runAsGroup: sc.runAsGroup } : {}),
    ...(groups ? { supplementalGroups: groups } : {}),
    // the sandbox (pause) always runs under the runtime's default profile, so pods may tighten theirs freely
    seccomp: { type: 'RuntimeDefault' },
  };
}

/** upstream's MakePortMappings over the pod's containers: every declared port, one per container port name. */
export function podPortMappings(pod: Pod): PortMapping[] {
  const out: PortMapping[] = [];
  for (const c of pod.spec?.containers ?? []) {
    const names = new Set<string>();
    for (const p of c.ports ?? []) {
      const protocol = (p.protocol ?? 'TCP') as PortMapping['protocol'];
      const name = p.name ? `${c.name}-${p.name}` : `${c.name}-${protocol}:${p.containerPort}`;
      if (names.has(name)) continue;
      names.add(name);
      out.push({ protocol, containerPort: p.containerPort, hostPort: p.hostPort ?? 0, ...(p.hostIP ? { hostIP: p.hostIP } : {}) });
    }
  }
  return out;
}

/** upstream's fieldSeccompProfile: container over pod; Localhost names a file under the profile root. */
export function seccompProfile(pod: Pod, container: Container, opts: SecurityOptions): SeccompProfile {
  const field: ApiSeccompProfile | undefined = container.securityContext?.seccompProfile ?? pod.spec?.securityContext?.seccompProfile;
  if (!field) return { type: opts.seccompDefault ? 'RuntimeDefault' : 'Unconfined' };
  if (field.type === 'RuntimeDefault') return { type: 'RuntimeDefault' };
  if (field.type === 'Localhost') {
    if (!field.localhostProfile) throw new ContainerConfigError('localhostProfile must be set if seccompProfile type is Localhost.');
    return { type: 'Localhost', localhostRef: join(opts.seccompProfileRoot, field.localhostProfile) };
  }
  return { type: 'Unconfined' };
}

/**
 * upstream's determineEffectiveSecurityContext: what the runtime needs
 * beyond the user and group (which ContainerConfig already carries).
 * Throws ContainerConfigError for a context the kubelet cannot express
 * (the pod shows CreateContainerConfigError).
 */
export function containerSecurity(pod: Pod, container: Container, opts: SecurityOptions): ContainerSecurity {
  const sc = container.securityContext;
  const unmasked = sc?.procMount === 'Unmasked';
  const groups = podGroups(pod.spec?.securityContext);
  return {
    ...(sc?.privileged !== undefined ? { privileged: sc.privileged } : {}),
    ...(sc?.capabilities ? { capabilities: { add: [...(sc.capabilities.add ?? [])], drop: [...(sc.capabilities.drop ?? [])] } } : {}),
    ...(sc?.readOnlyRootFilesystem !== undefined ? { readOnlyRootFilesystem: sc.readOnlyRootFilesystem } : {}),
    // upstream's AddNoNewPrivileges: only an explicit allowPrivilegeEscalation: false sets no_new_privs
    noNewPrivs: sc?.allowPrivilegeEscalation === false,
    seccomp: seccompProfile(pod, container, opts),
    maskedPaths: unmasked ? [] : [...DEFAULT_MASKED_PATHS],
    readonlyPaths: unmasked ? [] : [...DEFAULT_READONLY_PATHS],
    ...(groups ? { supplementalGroups: groups } : {}),
    namespaces: podNamespaces(pod),
  };
}
