import type { Container, PodSpec, SELinuxOptions } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { allContainers, ALLOWED, containersPhrase, denied, goQuote, joinQuote, pluralize, settersPhrase, sortedSet, type CheckResult } from './check.js';

/*
 * The baseline controls of the Pod Security Standards, with upstream's
 * reasons and details (k8s.io/pod-security-admission/policy).
 */

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

export function appArmorProfile(meta: ObjectMeta, spec: PodSpec): CheckResult {
  const setters: string[] = [];
  const values: string[] = [];
  const badType = (t: string | undefined) => t !== 'RuntimeDefault' && t !== 'Localhost';
  const podProfile = spec.securityContext?.appArmorProfile;
  if (podProfile && badType(podProfile.type)) {
    setters.push('pod');
    values.push(podProfile.type ?? '');
  }
  const bad: string[] = [];
  for (const c of allContainers(spec)) {
    const p = c.securityContext?.appArmorProfile;
    if (p && badType(p.type)) {
      bad.push(c.name);
      values.push(p.type ?? '');
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  const annotations = Object.entries(meta.annotations ?? {})
    .filter(([k, v]) => k.startsWith(APPARMOR_ANNOTATION_PREFIX) && v !== '' && v !== 'runtime/default' && !v.startsWith('localhost/'))
    .map(([k, v]) => `${k}=${goQuote(v)}`)
    .sort();
  const all = [...sortedSet(values), ...annotations];
  if (annotations.length > 0) setters.push(pluralize('annotation', 'annotations', annotations.length));
  if (setters.length === 0) return ALLOWED;
  return denied(pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', all.length), `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(all)}`);
}

const DEFAULT_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

export function capabilitiesBaseline(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const caps: string[] = [];
  for (const c of allContainers(spec)) {
    const extra = (c.securityContext?.capabilities?.add ?? []).filter((cap) => !DEFAULT_CAPABILITIES.has(cap));
    if (extra.length === 0) continue;
    bad.push(c.name);
    caps.push(...extra);
  }
  if (bad.length === 0) return ALLOWED;
  return denied('non-default capabilities', `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
}

export function hostNamespaces(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const found: string[] = [];
  if (spec.hostNetwork) found.push('hostNetwork=true');
  if (spec.hostPID) found.push('hostPID=true');
  if (spec.hostIPC) found.push('hostIPC=true');
  return found.length === 0 ? ALLOWED : denied('host namespaces', found.join(', '));
}

export function hostPathVolumes(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const names = (spec.volumes ?? []).filter((v) => v.hostPath).map((v) => v.name);
  return names.length === 0 ? ALLOWED : denied('hostPath volumes', `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}`);
}

export function hostPorts(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const c of allContainers(spec)) {
    const used = (c.ports ?? []).map((p) => p.hostPort ?? 0).filter((p) => p !== 0);
    if (used.length === 0) continue;
    bad.push(c.name);
    ports.push(...used.map(String));
  }
  if (bad.length === 0) return ALLOWED;
  const unique = sortedSet(ports);
  return denied('hostPort', `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', unique.length)} ${unique.join(', ')}`);
}

type Handler = { httpGet?: { host?: string }; tcpSocket?: { host?: string } } | undefined;

function handlerHosts(h: Handler): string[] {
  return [h?.httpGet?.host, h?.tcpSocket?.host].filter((x): x is string => Boolean(x));
}

export function hostProbesAndHostLifecycle(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const hosts: string[] = [];
  for (const c of allContainers(spec)) {
    const found = [c.livenessProbe, c.readinessProbe, c.startupProbe, c.lifecycle?.postStart, c.lifecycle?.preStop].flatMap((h) => handlerHosts(h));
    if (found.length === 0) continue;
    bad.push(c.name);
    hosts.push(...found);
  }
  if (bad.length === 0) return ALLOWED;
  const names = sortedSet(bad);
  const unique = sortedSet(hosts);
  return denied(
    'probe or lifecycle host',
    `${containersPhrase(names)} ${pluralize('uses', 'use', names.length)} ${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', unique.length)} ${joinQuote(unique)}`,
  );
}

export function privileged(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad = allContainers(spec).filter((c) => c.securityContext?.privileged === true).map((c) => c.name);
  return bad.length === 0 ? ALLOWED : denied('privileged', `${containersPhrase(bad)} must not set securityContext.privileged=true`);
}

/** Also the restricted procMount control (v1.35+), which keeps the same wording. */
export function procMount(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of allContainers(spec)) {
    const mount = c.securityContext?.procMount;
    if (mount === undefined || mount === 'Default') continue;
    bad.push(c.name);
    types.push(mount);
  }
  return bad.length === 0 ? ALLOWED : denied('procMount', `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`);
}

function seLinuxOptions(allowedTypes: ReadonlySet<string>) {
  return (_meta: ObjectMeta, spec: PodSpec): CheckResult => {
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const valid = (o: SELinuxOptions): boolean => {
      let ok = true;
      if (!allowedTypes.has(o.type ?? '')) {
        ok = false;
        badTypes.push(o.type ?? '');
      }
      if (o.user) setUser = true;
      if (o.role) setRole = true;
      return ok && !o.user && !o.role;
    };
    const podOpts = spec.securityContext?.seLinuxOptions;
    const podBad = podOpts !== undefined && !valid(podOpts);
    const bad = allContainers(spec)
      .filter((c) => c.securityContext?.seLinuxOptions !== undefined && !valid(c.securityContext.seLinuxOptions))
      .map((c) => c.name);
    if (!podBad && bad.length === 0) return ALLOWED;
    const data: string[] = [];
    const types = sortedSet(badTypes);
    if (types.length > 0) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
    return denied('seLinuxOptions', `${settersPhrase(podBad, bad)} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`);
  };
}

export const seLinuxOptions_1_0 = seLinuxOptions(new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']));
export const seLinuxOptions_1_31 = seLinuxOptions(new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']));

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

/** Before v1.19, seccomp was set by annotations. */
export function seccompProfileBaseline_1_0(meta: ObjectMeta, spec: PodSpec): CheckResult {
  const annotations = meta.annotations ?? {};
  const okValue = (v: string) => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');
  const forbidden: string[] = [];
  const keys = [SECCOMP_POD_ANNOTATION, ...allContainers(spec).map((c) => `${SECCOMP_CONTAINER_ANNOTATION_PREFIX}${c.name}`)];
  for (const k of keys) {
    if (k in annotations && !okValue(annotations[k])) forbidden.push(`${k}=${goQuote(annotations[k])}`);
  }
  if (forbidden.length === 0) return ALLOWED;
  const unique = sortedSet(forbidden);
  return denied('seccompProfile', `forbidden ${pluralize('annotation', 'annotations', unique.length)} ${unique.join(', ')}`);
}

const validSeccomp = (type: string | undefined) => type === 'RuntimeDefault' || type === 'Localhost';

/** Who sets a seccomp profile other than RuntimeDefault/Localhost, and which containers set none (without a pod-level one). */
export function seccompSetters(spec: PodSpec): { podBad: boolean; bad: string[]; unset: string[]; values: string[] } {
  const values: string[] = [];
  const podProfile = spec.securityContext?.seccompProfile;
  const podBad = podProfile !== undefined && !validSeccomp(podProfile.type);
  if (podBad) values.push(podProfile.type ?? '');
  const podSet = podProfile !== undefined && !podBad;
  const bad: string[] = [];
  const unset: string[] = [];
  for (const c of allContainers(spec)) {
    const p = c.securityContext?.seccompProfile;
    if (p) {
      if (!validSeccomp(p.type)) {
        bad.push(c.name);
        values.push(p.type ?? '');
      }
    } else if (!podSet) unset.push(c.name);
  }
  return { podBad, bad, unset, values: sortedSet(values) };
}

export function seccompProfileBaseline_1_19(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const { podBad, bad, values } = seccompSetters(spec);
  if (!podBad && bad.length === 0) return ALLOWED;
  return denied('seccompProfile', `${settersPhrase(podBad, bad)} must not set securityContext.seccompProfile.type to ${joinQuote(values)}`);
}

const SYSCTLS_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = [...SYSCTLS_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

function sysctls(allowed: readonly string[]) {
  const set = new Set(allowed);
  return (_meta: ObjectMeta, spec: PodSpec): CheckResult => {
    const forbidden = (spec.securityContext?.sysctls ?? []).map((s) => s.name).filter((n) => !set.has(n));
    return forbidden.length === 0 ? ALLOWED : denied('forbidden sysctls', forbidden.join(', '));
  };
}

export const sysctls_1_0 = sysctls(SYSCTLS_1_0);
export const sysctls_1_27 = sysctls(SYSCTLS_1_27);
export const sysctls_1_29 = sysctls(SYSCTLS_1_29);
export const sysctls_1_32 = sysctls(SYSCTLS_1_32);

export function windowsHostProcess(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const hostProcess = (c: Pick<Container, 'securityContext'>) => c.securityContext?.windowsOptions?.hostProcess === true;
  const bad = allContainers(spec).filter(hostProcess).map((c) => c.name);
  const podBad = spec.securityContext?.windowsOptions?.hostProcess === true;
  if (!podBad && bad.length === 0) return ALLOWED;
  return denied('hostProcess', `${settersPhrase(podBad, bad)} must not set securityContext.windowsOptions.hostProcess=true`);
}
