import type { Pod } from 'kubernetes-types/core/v1.js';

/** The reason upstream's kubelet rejects a pod with (phase Failed) when it sets a sysctl it may not. */
export const SYSCTL_FORBIDDEN = 'SysctlForbidden';

/**
 * upstream's safe sysctls: namespaced by the kernel and isolated from other
 * pods, so every pod may set them (the kernels they need are older than
 * any skiff runs on).
 */
export const SAFE_SYSCTLS: readonly string[] = [
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes',
];

type SysctlNamespace = 'ipc' | 'net';

/** upstream's NamespacedBy: which namespace isolates a sysctl (undefined: none known, never allowed). */
export function sysctlNamespace(name: string): SysctlNamespace | undefined {
  if (name.startsWith('net.')) return 'net';
  if (['kernel.sem', 'kernel.shm', 'kernel.msg', 'fs.mqueue.'].some((p) => name.startsWith(p))) return 'ipc';
  return undefined;
}

/** `a/b/c` is `a.b.c`, as the kernel and upstream accept both. */
const dotted = (name: string): string => (name.includes('/') ? name.replaceAll('/', '.') : name);

export class SysctlPatternError extends Error {
  override readonly name = 'SysctlPatternError';
}

/**
 * upstream's sysctl pod admission: the safe set plus `--allowed-unsafe-sysctls`
 * (names or `prefix*` patterns, each in a namespace the kernel isolates).
 * A net sysctl on a hostNetwork pod, or an IPC one on a hostIPC pod, is
 * refused even when allowed.
 */
export class SysctlAllowlist {
  private readonly names = new Map<string, SysctlNamespace>();
  private readonly prefixes = new Map<string, SysctlNamespace>();

  constructor(allowedUnsafe: readonly string[] = []) {
    for (const raw of [...SAFE_SYSCTLS, ...allowedUnsafe]) {
      if (!/^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]$/.test(raw) || raw.length > 253) {
        throw new SysctlPatternError(`sysctl ${JSON.stringify(raw)} must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]$`);
      }
      const s = dotted(raw);
      const prefix = s.endsWith('*') ? s.slice(0, -1) : undefined;
      const ns = sysctlNamespace(prefix ?? s);
      if (!ns) throw new SysctlPatternError(prefix !== undefined ? `the sysctls ${JSON.stringify(s)} are not known to be namespaced` : `the sysctl ${JSON.stringify(s)} are not known to be namespaced`);
      (prefix !== undefined ? this.prefixes : this.names).set(prefix ?? s, ns);
    }
  }

  private check(raw: string, hostNet: boolean, hostIPC: boolean): string | undefined {
    const s = dotted(raw);
    let ns = this.names.get(s);
    if (!ns) for (const [p, n] of this.prefixes) if (s.startsWith(p)) ns = n;
    if (!ns) return `${JSON.stringify(s)} not allowlisted`;
    if ((ns === 'ipc' && hostIPC) || (ns === 'net' && hostNet)) return `${JSON.stringify(s)} not allowed with host ${ns} enabled`;
    return undefined;
  }

  /** The rejection message for the pod, or undefined when it may run. */
  admit(pod: Pod): string | undefined {
    for (const s of pod.spec?.securityContext?.sysctls ?? []) {
      const why = this.check(s.name, pod.spec?.hostNetwork === true, pod.spec?.hostIPC === true);
      if (why) return `forbidden sysctl: ${why}`;
    }
    return undefined;
  }
}
