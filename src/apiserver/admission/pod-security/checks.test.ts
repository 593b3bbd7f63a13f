import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { CheckPod } from './check.js';
import * as b from './checks-baseline.js';
import * as r from './checks-restricted.js';
import { aggregate, Evaluator } from './evaluator.js';
import { LATEST, v1 } from './levels.js';

const spec = (s: Partial<PodSpec>): PodSpec => ({ containers: [], ...s });

/** [check, pod spec (and metadata), expected reason, expected detail] — wording from upstream's policy tests. */
const DENIED: [string, CheckPod, PodSpec, ObjectMeta, string, string][] = [
  ['hostNamespaces', b.hostNamespaces, spec({ hostNetwork: true, hostIPC: true, hostPID: true }), {}, 'host namespaces', 'hostNetwork=true, hostPID=true, hostIPC=true'],
  ['privileged', b.privileged, spec({ containers: [{ name: 'a', securityContext: { privileged: true } }, { name: 'b', securityContext: { privileged: true } }] }), {}, 'privileged', 'containers "a", "b" must not set securityContext.privileged=true'],
  [
    'capabilities_baseline',
    b.capabilitiesBaseline,
    spec({ containers: [{ name: 'a', securityContext: { capabilities: { add: ['NET_RAW', 'CHOWN', 'SYS_ADMIN'] } } }] }),
    {},
    'non-default capabilities',
    'container "a" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add',
  ],
  ['hostPathVolumes', b.hostPathVolumes, spec({ volumes: [{ name: 'a', hostPath: { path: '/' } }, { name: 'b', hostPath: { path: '/' } }] }), {}, 'hostPath volumes', 'volumes "a", "b"'],
  ['hostPorts', b.hostPorts, spec({ containers: [{ name: 'a', ports: [{ containerPort: 80, hostPort: 20 }, { containerPort: 81, hostPort: 10 }] }] }), {}, 'hostPort', 'container "a" uses hostPorts 10, 20'],
  [
    'appArmorProfile',
    b.appArmorProfile,
    spec({ containers: [{ name: 'a', securityContext: { appArmorProfile: { type: 'Unconfined' } } }] }),
    { annotations: { 'container.apparmor.security.beta.kubernetes.io/b': 'unconfined' } },
    'forbidden AppArmor profiles',
    'container "a" and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/b="unconfined""',
  ],
  [
    'seLinuxOptions',
    b.seLinuxOptions_1_31,
    spec({ securityContext: { seLinuxOptions: { type: 'bar' } }, containers: [{ name: 'a', securityContext: { seLinuxOptions: { user: 'u', role: 'r' } } }] }),
    {},
    'seLinuxOptions',
    'pod and container "a" set forbidden securityContext.seLinuxOptions: type "bar"; user may not be set; role may not be set',
  ],
  ['procMount', b.procMount, spec({ containers: [{ name: 'a', securityContext: { procMount: 'Unmasked' } }] }), {}, 'procMount', 'container "a" must not set securityContext.procMount to "Unmasked"'],
  [
    'seccompProfile_baseline',
    b.seccompProfileBaseline_1_19,
    spec({ securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'a' }] }),
    {},
    'seccompProfile',
    'pod must not set securityContext.seccompProfile.type to "Unconfined"',
  ],
  ['sysctls', b.sysctls_1_32, spec({ securityContext: { sysctls: [{ name: 'a', value: '1' }, { name: 'kernel.shm_rmid_forced', value: '0' }, { name: 'b', value: '1' }] } }), {}, 'forbidden sysctls', 'a, b'],
  ['windowsHostProcess', b.windowsHostProcess, spec({ containers: [{ name: 'a', securityContext: { windowsOptions: { hostProcess: true } } }] }), {}, 'hostProcess', 'container "a" must not set securityContext.windowsOptions.hostProcess=true'],
  ['allowPrivilegeEscalation', r.allowPrivilegeEscalation, spec({ containers: [{ name: 'a' }, { name: 'b', securityContext: { allowPrivilegeEscalation: false } }] }), {}, 'allowPrivilegeEscalation != false', 'container "a" must set securityContext.allowPrivilegeEscalation=false'],
  [
    'capabilities_restricted',
    r.capabilitiesRestricted,
    spec({ containers: [{ name: 'a' }, { name: 'b', securityContext: { capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE', 'CHOWN'] } } }] }),
    {},
    'unrestricted capabilities',
    'container "a" must set securityContext.capabilities.drop=["ALL"]; container "b" must not include "CHOWN" in securityContext.capabilities.add',
  ],
  ['restrictedVolumes', r.restrictedVolumes, spec({ volumes: [{ name: 'a', hostPath: { path: '/' } }, { name: 'b', nfs: { server: 's', path: '/' } }, { name: 'c', emptyDir: {} }] }), {}, 'restricted volume types', 'volumes "a", "b" use restricted volume types "hostPath", "nfs"'],
  ['runAsNonRoot (implicit)', r.runAsNonRoot, spec({ containers: [{ name: 'a' }, { name: 'b', securityContext: { runAsNonRoot: true } }] }), {}, 'runAsNonRoot != true', 'pod or container "a" must set securityContext.runAsNonRoot=true'],
  ['runAsNonRoot (explicit)', r.runAsNonRoot, spec({ securityContext: { runAsNonRoot: false }, containers: [{ name: 'a', securityContext: { runAsNonRoot: false } }] }), {}, 'runAsNonRoot != true', 'pod and container "a" must not set securityContext.runAsNonRoot=false'],
  ['runAsUser', r.runAsUser, spec({ securityContext: { runAsUser: 0 }, containers: [{ name: 'a', securityContext: { runAsUser: 0 } }, { name: 'b', securityContext: { runAsUser: 1000 } }] }), {}, 'runAsUser=0', 'pod and container "a" must not set runAsUser=0'],
  ['seccompProfile_restricted', r.seccompProfileRestricted, spec({ containers: [{ name: 'a' }, { name: 'b' }] }), {}, 'seccompProfile', 'pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"'],
];

describe('Pod Security Standards checks', () => {
  for (const [name, check, s, meta, reason, detail] of DENIED) {
    it(`${name}: ${reason}`, () => assert.deepEqual(check(meta, s), { allowed: false, reason, detail }));
  }

  it('allow what each level permits', () => {
    const ok = spec({
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' }, sysctls: [{ name: 'net.ipv4.tcp_syncookies', value: '1' }] },
      containers: [{ name: 'a', ports: [{ containerPort: 80 }], securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] }, procMount: 'Default' } }],
      volumes: [{ name: 'v', configMap: { name: 'x' } }, { name: 'p', projected: { sources: [] } }],
    });
    for (const [, check] of DENIED) assert.equal(check({}, ok).allowed, true);
  });

  it('a Windows pod is exempt from the Linux-only restricted controls from v1.25', () => {
    const win = spec({ os: { name: 'windows' }, containers: [{ name: 'a' }] });
    assert.equal(r.exceptWindows(r.allowPrivilegeEscalation)({}, win).allowed, true);
    assert.equal(r.allowPrivilegeEscalation({}, win).allowed, false);
  });
});

describe('Evaluator', () => {
  const ev = new Evaluator();
  const privilegedPod = spec({ containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] });

  it('restricted: baseline checks then restricted ones, each in ID order, in upstream message form', () => {
    const result = aggregate(ev.evaluate({ level: 'restricted', version: LATEST }, {}, privilegedPod));
    assert.equal(
      result.forbiddenDetail,
      'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    assert.equal(result.forbiddenReason, 'privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile');
  });

  it('baseline runs only baseline checks; privileged runs none', () => {
    assert.equal(aggregate(ev.evaluate({ level: 'baseline', version: LATEST }, {}, privilegedPod)).forbiddenReason, 'privileged');
    assert.deepEqual(ev.evaluate({ level: 'privileged', version: LATEST }, {}, privilegedPod), []);
  });

  it('restricted checks override their baseline counterparts; older versions use older checks', () => {
    const hostPath = spec({ volumes: [{ name: 'h', hostPath: { path: '/' } }], containers: [{ name: 'c', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }] });
    const latest = aggregate(ev.evaluate({ level: 'restricted', version: LATEST }, {}, hostPath)).forbiddenReason;
    assert.doesNotMatch(latest, /hostPath volumes|non-default capabilities/);
    assert.match(latest, /restricted volume types/);
    assert.match(latest, /unrestricted capabilities/);
    // before v1.22 capabilities_restricted did not exist, so the baseline capability check applies
    const old = aggregate(ev.evaluate({ level: 'restricted', version: v1(21) }, {}, hostPath)).forbiddenReason;
    assert.match(old, /non-default capabilities/);
    assert.doesNotMatch(old, /unrestricted capabilities|seccompProfile, runAsUser/);
    // runAsUser=0 is only checked from v1.23
    const root = spec({ securityContext: { runAsUser: 0, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'c', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }] });
    assert.equal(aggregate(ev.evaluate({ level: 'restricted', version: v1(22) }, {}, root)).allowed, true);
    assert.equal(aggregate(ev.evaluate({ level: 'restricted', version: v1(23) }, {}, root)).forbiddenReason, 'runAsUser=0');
    assert.equal(aggregate(ev.evaluate({ level: 'restricted', version: v1(99) }, {}, root)).forbiddenReason, 'runAsUser=0');
  });
});
