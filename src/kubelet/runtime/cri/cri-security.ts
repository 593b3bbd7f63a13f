import type { ContainerSecurity, NamespaceMode, PodNamespaces, SandboxLinux, SeccompProfile } from '../runtime.js';

/** CRI's NamespaceMode, Protocol and SecurityProfile.ProfileType enums (int32 on the wire). */
const NAMESPACE_MODES: Record<NamespaceMode, number> = { Pod: 0, Container: 1, Node: 2 };
export const PROTOCOLS = { TCP: 0, UDP: 1, SCTP: 2 } as const;
const PROFILE_TYPES: Record<SeccompProfile['type'], number> = { RuntimeDefault: 0, Unconfined: 1, Localhost: 2 };

/** A pod without host namespaces or shareProcessNamespace. */
const DEFAULT_NAMESPACES: PodNamespaces = { network: 'Pod', pid: 'Container', ipc: 'Pod' };

function namespaceOption(ns: PodNamespaces = DEFAULT_NAMESPACES): object {
  return { network: NAMESPACE_MODES[ns.network], pid: NAMESPACE_MODES[ns.pid], ipc: NAMESPACE_MODES[ns.ipc] };
}

function securityProfile(p: SeccompProfile): object {
  return { profileType: PROFILE_TYPES[p.type], localhostRef: p.localhostRef ?? '' };
}

/** LinuxPodSandboxConfig from the kubelet's pod-level settings. */
export function criSandboxLinux(l: SandboxLinux | undefined): object {
  return {
    cgroupParent: l?.cgroupParent ?? '',
    sysctls: l?.sysctls ?? {},
    securityContext: {
      namespaceOptions: namespaceOption(l?.namespaces),
      privileged: l?.privileged ?? false,
      supplementalGroups: l?.supplementalGroups ?? [],
      ...(l?.runAsUser !== undefined ? { runAsUser: { value: l.runAsUser } } : {}),
      ...(l?.runAsGroup !== undefined ? { runAsGroup: { value: l.runAsGroup } } : {}),
      ...(l?.seccomp ? { seccomp: securityProfile(l.seccomp) } : {}),
    },
  };
}

/** LinuxContainerSecurityContext from the container's effective security context (user and group are added by the caller). */
export function criContainerSecurity(s: ContainerSecurity | undefined): object {
  return {
    namespaceOptions: namespaceOption(s?.namespaces),
    privileged: s?.privileged ?? false,
    readonlyRootfs: s?.readOnlyRootFilesystem ?? false,
    noNewPrivs: s?.noNewPrivs ?? false,
    supplementalGroups: s?.supplementalGroups ?? [],
    ...(s?.capabilities ? { capabilities: { addCapabilities: s.capabilities.add, dropCapabilities: s.capabilities.drop } } : {}),
    ...(s?.seccomp ? { seccomp: securityProfile(s.seccomp) } : {}),
    ...(s?.maskedPaths ? { maskedPaths: s.maskedPaths } : {}),
    ...(s?.readonlyPaths ? { readonlyPaths: s.readonlyPaths } : {}),
  };
}
