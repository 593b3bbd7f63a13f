import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { SysctlAllowlist, SysctlPatternError, sysctlNamespace } from './sysctl-allowlist.js';

const pod = (sysctls: [string, string][], host: { hostNetwork?: boolean; hostIPC?: boolean } = {}): Pod => ({
  spec: { ...host, containers: [], securityContext: { sysctls: sysctls.map(([name, value]) => ({ name, value })) } },
});

test('the safe set is admitted; anything else is refused as upstream words it', () => {
  const a = new SysctlAllowlist();
  assert.equal(a.admit(pod([['net.ipv4.ip_unprivileged_port_start', '0'], ['kernel.shm_rmid_forced', '1']])), undefined);
  assert.equal(a.admit(pod([['net/ipv4/ping_group_range', '0 0']])), undefined);
  assert.equal(a.admit(pod([['kernel.msgmax', '1']])), 'forbidden sysctl: "kernel.msgmax" not allowlisted');
  assert.equal(a.admit(pod([])), undefined);
});

test('host namespaces forbid the sysctls they would change on the node', () => {
  const a = new SysctlAllowlist(['kernel.msg*']);
  assert.equal(a.admit(pod([['net.ipv4.tcp_syncookies', '1']], { hostNetwork: true })), 'forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host net enabled');
  assert.equal(a.admit(pod([['kernel.msgmax', '1']], { hostIPC: true })), 'forbidden sysctl: "kernel.msgmax" not allowed with host ipc enabled');
  assert.equal(a.admit(pod([['kernel.msgmax', '1']])), undefined);
});

test('--allowed-unsafe-sysctls takes names and prefixes of namespaced sysctls only', () => {
  assert.equal(new SysctlAllowlist(['net.core.somaxconn']).admit(pod([['net.core.somaxconn', '1024']])), undefined);
  assert.throws(() => new SysctlAllowlist(['vm.swappiness']), (e: unknown) => e instanceof SysctlPatternError && e.message === 'the sysctl "vm.swappiness" are not known to be namespaced');
  assert.throws(() => new SysctlAllowlist(['kernel.*']), (e: unknown) => e instanceof SysctlPatternError && /not known to be namespaced/.test(e.message));
  assert.throws(() => new SysctlAllowlist(['Bad Name']), SysctlPatternError);
  assert.equal(sysctlNamespace('fs.mqueue.msg_max'), 'ipc');
  assert.equal(sysctlNamespace('kernel.hostname'), undefined);
});
