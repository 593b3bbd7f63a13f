import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { ContainerConfigError } from './container-env.js';
import { containerSecurity, DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS, podNamespaces, podPortMappings, sandboxLinux, seccompProfile } from './security-context.js';

const opts = { seccompProfileRoot: '/var/lib/kubelet/seccomp' };
const pod = (spec: Partial<NonNullable<Pod['spec']>>): Pod => ({ metadata: { name: 'p', uid: 'u' }, spec: { containers: [{ name: 'c' }], ...spec } });
const c = (securityContext: Container['securityContext']): Container => ({ name: 'c', securityContext });

test('namespaces: host ones on request, one PID namespace per pod with shareProcessNamespace', () => {
  const cases: [Partial<NonNullable<Pod['spec']>>, ReturnType<typeof podNamespaces>][] = [
    [{}, { network: 'Pod', pid: 'Container', ipc: 'Pod' }],
    [{ hostNetwork: true }, { network: 'Node', pid: 'Container', ipc: 'Pod' }],
    [{ hostPID: true, shareProcessNamespace: true }, { network: 'Pod', pid: 'Node', ipc: 'Pod' }],
    [{ shareProcessNamespace: true }, { network: 'Pod', pid: 'Pod', ipc: 'Pod' }],
    [{ hostIPC: true }, { network: 'Pod', pid: 'Container', ipc: 'Node' }],
  ];
  for (const [spec, want] of cases) assert.deepEqual(podNamespaces(pod(spec)), want, JSON.stringify(spec));
});

test('the sandbox: sysctls, pod user and groups (fsGroup first), privileged when any container is, RuntimeDefault seccomp', () => {
  const l = sandboxLinux(pod({
    securityContext: { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000, 5000], sysctls: [{ name: 'net.ipv4.ping_group_range', value: '0 1' }] },
    initContainers: [{ name: 'i', securityContext: { privileged: true } }],
  }), '/kubepods/besteffort/podu');
  assert.deepEqual(l, {
    cgroupParent: '/kubepods/besteffort/podu', namespaces: { network: 'Pod', pid: 'Container', ipc: 'Pod' }, sysctls: { 'net.ipv4.ping_group_range': '0 1' },
    privileged: true, runAsUser: 1000, runAsGroup: 3000, supplementalGroups: [2000, 4000, 5000], seccomp: { type: 'RuntimeDefault' },
  });
  assert.equal(sandboxLinux(pod({})).privileged, false);
});

test('port mappings: every declared port of the app containers, TCP by default, duplicates by name dropped', () => {
  const p = pod({ containers: [
    { name: 'a', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 53, protocol: 'UDP', hostIP: '127.0.0.1', hostPort: 53 }, { containerPort: 80, hostPort: 9090 }] },
    { name: 'b', ports: [{ name: 'm', containerPort: 9100 }] },
  ] });
  assert.deepEqual(podPortMappings(p), [
    { protocol: 'TCP', containerPort: 80, hostPort: 8080 },
    { protocol: 'UDP', containerPort: 53, hostPort: 53, hostIP: '127.0.0.1' },
    { protocol: 'TCP', containerPort: 9100, hostPort: 0 },
  ]);
});

test('seccomp: container over pod; Localhost under the profile root; Unconfined unless --seccomp-default', () => {
  const p = pod({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } } });
  assert.deepEqual(seccompProfile(p, c(undefined), opts), { type: 'RuntimeDefault' });
  assert.deepEqual(seccompProfile(p, c({ seccompProfile: { type: 'Unconfined' } }), opts), { type: 'Unconfined' });
  assert.deepEqual(seccompProfile(pod({}), c({ seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/a.json' } }), opts), { type: 'Localhost', localhostRef: '/var/lib/kubelet/seccomp/profiles/a.json' });
  assert.deepEqual(seccompProfile(pod({}), c(undefined), opts), { type: 'Unconfined' });
  assert.deepEqual(seccompProfile(pod({}), c(undefined), { ...opts, seccompDefault: true }), { type: 'RuntimeDefault' });
  assert.throws(() => seccompProfile(pod({}), c({ seccompProfile: { type: 'Localhost' } }), opts), (err: unknown) => err instanceof ContainerConfigError && err.message === 'localhostProfile must be set if seccompProfile type is Localhost.');
});

test('the container context: capabilities as given, no_new_privs only for an explicit allowPrivilegeEscalation: false, procMount', () => {
  const s = containerSecurity(pod({ securityContext: { fsGroup: 7 } }), c({
    privileged: false, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] },
  }), opts);
  assert.deepEqual(s, {
    privileged: false, capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] }, readOnlyRootFilesystem: true, noNewPrivs: true, seccomp: { type: 'Unconfined' },
    maskedPaths: [...DEFAULT_MASKED_PATHS], readonlyPaths: [...DEFAULT_READONLY_PATHS], supplementalGroups: [7], namespaces: { network: 'Pod', pid: 'Container', ipc: 'Pod' },
  });
  assert.equal(containerSecurity(pod({}), c(undefined), opts).noNewPrivs, false);
  assert.equal(containerSecurity(pod({}), c({ allowPrivilegeEscalation: true }), opts).noNewPrivs, false);
  const unmasked = containerSecurity(pod({}), c({ procMount: 'Unmasked' }), opts);
  assert.deepEqual([unmasked.maskedPaths, unmasked.readonlyPaths], [[], []]);
});
