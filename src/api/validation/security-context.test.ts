import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messagesFor } from './test-support.js';

function pod(spec: Record<string, unknown>) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec };
}
const c = (securityContext: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name: 'app', image: 'nginx:1.25', securityContext, ...extra });

test('a container\'s security context: escalation conflicts, id ranges, procMount and seccomp as upstream validates them', () => {
  const msgs = messagesFor(pod({ containers: [c({
    allowPrivilegeEscalation: false, privileged: true, capabilities: { add: ['CAP_SYS_ADMIN'] }, runAsUser: -1, procMount: 'Odd',
    seccompProfile: { type: 'Localhost' },
  })] }));
  assert.equal(msgs.length, 5, msgs.join('\n'));
  assert.ok(msgs.some((m) => m.startsWith('spec.containers[0].securityContext: Invalid value') && m.endsWith('cannot set `allowPrivilegeEscalation` to false and `privileged` to true')), msgs.join('\n'));
  assert.ok(msgs.some((m) => m.endsWith('cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN')));
  assert.ok(msgs.includes('spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive'), msgs.join('\n'));
  assert.ok(msgs.includes('spec.containers[0].securityContext.procMount: Unsupported value: "Odd": supported values: "Default", "Unmasked"'), msgs.join('\n'));
  assert.ok(msgs.includes('spec.containers[0].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost'), msgs.join('\n'));
  assert.deepEqual(messagesFor(pod({ containers: [c({ seccompProfile: { type: 'RuntimeDefault' }, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } })] })), []);
});

test('the pod\'s security context: sysctl names and duplicates, host namespace rules, seccomp profile paths', () => {
  const msgs = messagesFor(pod({
    hostNetwork: true, hostPID: true, shareProcessNamespace: true,
    containers: [c({}, { ports: [{ containerPort: 80, hostPort: 8080 }] })],
    securityContext: { fsGroup: 2147483648, sysctls: [{ name: 'net.ipv4.ping_group_range', value: '0 1' }, { name: 'net/ipv4/ping_group_range', value: '1 2' }, { name: 'Bad', value: '' }], seccompProfile: { type: 'Localhost', localhostProfile: '../x.json' } },
  }));
  assert.deepEqual(msgs.sort(), [
    'spec.containers[0].ports[0].containerPort: Invalid value: 80: must match `hostPort` when `hostNetwork` is true',
    'spec.securityContext.fsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive',
    'spec.securityContext.seccompProfile.localhostProfile: Invalid value: "../x.json": must not contain \'..\'',
    'spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled',
    'spec.securityContext.sysctls[1].name: Duplicate value: "net/ipv4/ping_group_range"',
    'spec.securityContext.sysctls[2].name: Invalid value: "Bad": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$',
  ]);
});
