import assert from 'node:assert/strict';
import { test } from 'node:test';
import { criCodec } from './cri-messages.js';
import { criContainerSecurity, criSandboxLinux } from './cri-security.js';

test('the sandbox\'s Linux config carries the namespaces, sysctls, cgroup parent and groups with CRI\'s enum values', () => {
  const linux = criSandboxLinux({
    cgroupParent: '/kubepods/podu', namespaces: { network: 'Node', pid: 'Pod', ipc: 'Node' }, sysctls: { 'kernel.shm_rmid_forced': '1' },
    privileged: true, runAsUser: 5, supplementalGroups: [7], seccomp: { type: 'RuntimeDefault' },
  });
  const decoded = criCodec('LinuxPodSandboxConfig').decode(criCodec('LinuxPodSandboxConfig').encode(linux)) as Record<string, never>;
  assert.equal(decoded.cgroupParent, '/kubepods/podu');
  assert.deepEqual(decoded.sysctls, { 'kernel.shm_rmid_forced': '1' });
  const sc = decoded.securityContext as Record<string, never>;
  // NODE = 2, POD = 0
  assert.deepEqual({ ...(sc.namespaceOptions as object) }, { network: 2, pid: 0, ipc: 2, targetId: '' });
  assert.equal(sc.privileged, true);
  assert.deepEqual(sc.supplementalGroups, [7]);
  assert.equal((sc.runAsUser as { value: number }).value, 5);
  assert.equal((sc.seccomp as { profileType: number }).profileType, 0);
});

test('without settings the sandbox and container get a pod\'s own namespaces and a private PID namespace per container', () => {
  const sandbox = criSandboxLinux(undefined) as { securityContext: { namespaceOptions: object } };
  assert.deepEqual(sandbox.securityContext.namespaceOptions, { network: 0, pid: 1, ipc: 0 });
  const c = criContainerSecurity(undefined) as { namespaceOptions: object; privileged: boolean };
  assert.deepEqual(c.namespaceOptions, { network: 0, pid: 1, ipc: 0 });
  assert.equal(c.privileged, false);
});

test('the container\'s security context: capabilities as given (the runtime adds CAP_), seccomp Localhost, masked paths', () => {
  const sc = criContainerSecurity({
    capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] }, readOnlyRootFilesystem: true, noNewPrivs: true,
    seccomp: { type: 'Localhost', localhostRef: '/k/seccomp/a.json' }, maskedPaths: ['/proc/kcore'], readonlyPaths: [], supplementalGroups: [1, 2],
  });
  const decoded = criCodec('LinuxContainerSecurityContext').decode(criCodec('LinuxContainerSecurityContext').encode(sc)) as Record<string, never>;
  assert.deepEqual({ ...(decoded.capabilities as object) }, { addCapabilities: ['NET_ADMIN'], dropCapabilities: ['ALL'] });
  assert.equal(decoded.readonlyRootfs, true);
  assert.equal(decoded.noNewPrivs, true);
  assert.deepEqual({ ...(decoded.seccomp as object) }, { profileType: 2, localhostRef: '/k/seccomp/a.json' });
  assert.deepEqual(decoded.maskedPaths, ['/proc/kcore']);
  assert.deepEqual(decoded.supplementalGroups, [1, 2]);
});
