import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

/**
 * RBAC through the real kubectl: `auth can-i` (with --as, --list),
 * `auth whoami`, upstream's forbidden wording and escalation prevention.
 * The cases follow upstream's documented semantics (Using RBAC
 * Authorization, kubernetes.io/docs/reference/access-authn-authz/rbac/).
 */
const POLICY = `
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: jane-view, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: User, name: jane}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bob-edit, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{kind: User, name: bob}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-admin, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects: [{kind: User, name: alice}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: devs-edit, namespace: team-b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{kind: Group, name: devs}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: team-a}
rules:
- {apiGroups: [""], resources: [pods], verbs: [get, list]}
- {apiGroups: [""], resources: [pods/log], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: robot-reads-pods, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
subjects: [{kind: ServiceAccount, name: robot}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: lock-holder, namespace: team-a}
rules:
- {apiGroups: [coordination.k8s.io], resources: [leases], resourceNames: [my-lock], verbs: [get, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dave-lock, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: lock-holder}
subjects: [{kind: User, name: dave}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: node-reader}
rules:
- {apiGroups: [""], resources: [nodes], verbs: [get, list, watch]}
- {nonResourceURLs: [/logs, /logs/*], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: carol-nodes}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: node-reader}
subjects: [{kind: User, name: carol}]
`;

const ROBOT = 'system:serviceaccount:team-a:robot';

/** [who (--as, then --as-group values), can-i arguments, expected answer]. */
const CASES: [string[], string[], 'yes' | 'no'][] = [
  [['jane'], ['list', 'pods', '-n', 'team-a'], 'yes'],
  [['jane'], ['get', 'pods', '--subresource=log', '-n', 'team-a'], 'yes'],
  [['jane'], ['create', 'pods', '-n', 'team-a'], 'no'],
  [['jane'], ['list', 'pods', '-n', 'default'], 'no'],
  [['jane'], ['list', 'pods', '--all-namespaces'], 'no'],
  [['jane'], ['get', 'secrets', '-n', 'team-a'], 'no'],
  [['jane'], ['list', 'rolebindings.rbac.authorization.k8s.io', '-n', 'team-a'], 'no'],
  [['jane'], ['create', 'selfsubjectaccessreviews.authorization.k8s.io'], 'yes'],
  [['jane'], ['get', '/healthz'], 'yes'],
  [['jane'], ['get', '/apis'], 'yes'],
  [['jane'], ['get', '/metrics'], 'no'],
  [['bob'], ['create', 'deployments.apps', '-n', 'team-a'], 'yes'],
  [['bob'], ['update', 'deployments.apps', '--subresource=scale', '-n', 'team-a'], 'yes'],
  [['bob'], ['create', 'pods', '--subresource=exec', '-n', 'team-a'], 'yes'],
  [['bob'], ['get', 'secrets', '-n', 'team-a'], 'yes'],
  [['bob'], ['create', 'roles.rbac.authorization.k8s.io', '-n', 'team-a'], 'no'],
  [['alice'], ['create', 'rolebindings.rbac.authorization.k8s.io', '-n', 'team-a'], 'yes'],
  [['alice'], ['delete', 'namespaces/team-a'], 'no'],
  [[ROBOT], ['get', 'pods', '-n', 'team-a'], 'yes'],
  [[ROBOT], ['get', 'pods/log', '-n', 'team-a'], 'yes'],
  [[ROBOT], ['delete', 'pods', '-n', 'team-a'], 'no'],
  [[ROBOT], ['get', 'pods', '-n', 'team-b'], 'no'],
  [['carol'], ['list', 'nodes'], 'yes'],
  [['carol'], ['delete', 'nodes'], 'no'],
  [['carol'], ['get', '/logs/kube-apiserver.log'], 'yes'],
  [['dave'], ['update', 'leases.coordination.k8s.io/my-lock', '-n', 'team-a'], 'yes'],
  [['dave'], ['update', 'leases.coordination.k8s.io/other', '-n', 'team-a'], 'no'],
  [['dave'], ['list', 'leases.coordination.k8s.io', '-n', 'team-a'], 'no'],
  [['erin', 'devs'], ['create', 'deployments.apps', '-n', 'team-b'], 'yes'],
  [['erin', 'devs'], ['create', 'deployments.apps', '-n', 'team-a'], 'no'],
  [['root', 'system:masters'], ['*', '*'], 'yes'],
];

describe('RBAC authorization', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  before(async () => {
    server = await startServer({ args: ['--disable', 'kubelet,scheduler'] });
    k = kubectlFor(server.kubeconfig);
    await k.ok(['apply', '-f', '-'], { input: POLICY });
    // edit and admin are aggregated by the controller manager
    await waitFor('edit to be aggregated', async () => (await k.exec(['auth', 'can-i', 'create', 'deployments.apps', '-n', 'team-a', '--as', 'bob'])).stdout.trim() === 'yes');
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it(`kubectl auth can-i --as answers ${CASES.length} cases as upstream`, async () => {
    const wrong: string[] = [];
    for (const [[as, ...groups], args, expected] of CASES) {
      const who = ['--as', as, ...groups.flatMap((g) => ['--as-group', g])];
      const r = await k.exec(['auth', 'can-i', ...args, ...who]);
      const answer = r.stdout.trim();
      if (answer !== expected) wrong.push(`${as} ${groups.join(',')} can-i ${args.join(' ')}: ${answer || r.stderr.trim()} (want ${expected})`);
      // upstream's exit status: 0 for yes, 1 for no
      else if ((r.code === 0) !== (expected === 'yes')) wrong.push(`${args.join(' ')}: exit code ${r.code}`);
    }
    assert.deepEqual(wrong, []);
  });

  it('kubectl auth can-i --list shows the rules that apply in a namespace', async () => {
    const out = await k.ok(['auth', 'can-i', '--list', '-n', 'team-a', '--as', ROBOT]);
    const lines = out.trim().split('\n');
    assert.match(lines[0], /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
    assert.ok(lines.some((l) => /^pods\s+\[\]\s+\[\]\s+\[get list\]$/.test(l)), out);
    assert.ok(lines.some((l) => /^pods\/log\s+\[\]\s+\[\]\s+\[get\]$/.test(l)), out);
    assert.ok(lines.some((l) => /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/.test(l)), out);
    assert.ok(lines.some((l) => /^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/.test(l)), out);
    assert.ok(!lines.some((l) => l.startsWith('secrets')), out);
    const dave = await k.ok(['auth', 'can-i', '--list', '-n', 'team-a', '--as', 'dave']);
    assert.match(dave, /^leases\.coordination\.k8s\.io\s+\[\]\s+\[my-lock\]\s+\[get update\]$/m);
    const admin = await k.ok(['auth', 'can-i', '--list']);
    assert.match(admin, /^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
  });

  it('answers forbidden requests with upstream wording, and who-am-i', async () => {
    const denied = await k.fails(['get', 'pods', '-n', 'default', '--as', 'jane']);
    assert.match(denied, /Error from server \(Forbidden\): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"/);
    const named = await k.fails(['delete', 'namespace', 'team-a', '--as', 'jane']);
    assert.match(named, /namespaces "team-a" is forbidden: User "jane" cannot delete resource "namespaces" in API group "" in the namespace "team-a"/);
    assert.match(await k.ok(['get', 'pods', '-n', 'team-a', '--as', 'jane']), /^$/);
    // a namespace request is in that namespace: view bound in team-a lets jane read team-a itself, not team-b
    await k.ok(['get', 'namespace', 'team-a', '--as', 'jane']);
    assert.match(await k.fails(['get', 'namespace', 'team-b', '--as', 'jane']), /namespaces "team-b" is forbidden: User "jane" cannot get resource "namespaces" in API group "" in the namespace "team-b"/);
    // anonymous users may not even ask (system:basic-user is for authenticated users); a SubjectAccessReview can ask for them
    const anonymous = await k.fails(['auth', 'can-i', 'get', '/version', '--as', 'system:anonymous', '--as-group', 'system:unauthenticated']);
    assert.match(anonymous, /selfsubjectaccessreviews.authorization.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope/);
    const sar = (attrs: string) =>
      k.ok(['create', '-o', 'jsonpath={.status.allowed}', '-f', '-'], {
        input: `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"system:anonymous","groups":["system:unauthenticated"],${attrs}}}`,
      });
    assert.equal(await sar('"nonResourceAttributes":{"path":"/version","verb":"get"}'), 'true');
    assert.equal(await sar('"resourceAttributes":{"verb":"list","resource":"pods","namespace":"default"}'), 'false');
    const whoami = await k.ok(['auth', 'whoami', '--as', 'erin', '--as-group', 'devs', '-o', 'json']);
    assert.deepEqual(JSON.parse(whoami).status.userInfo, { username: 'erin', groups: ['devs', 'system:authenticated'] });
  });

  it('refuses to grant permissions the granter does not hold (escalation prevention)', async () => {
    // alice is admin in team-a: she may bind edit there, but not cluster-admin
    await k.ok(['create', 'rolebinding', 'frank-edit', '--clusterrole=edit', '--user=frank', '-n', 'team-a', '--as', 'alice']);
    const escalation = await k.fails(['create', 'rolebinding', 'frank-root', '--clusterrole=cluster-admin', '--user=frank', '-n', 'team-a', '--as', 'alice']);
    assert.match(
      escalation,
      /rolebindings.rbac.authorization.k8s.io "frank-root" is forbidden: user "alice" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}\n\{NonResourceURLs:\["\*"\], Verbs:\["\*"\]\}/,
    );
    const role = await k.fails(['create', 'role', 'node-lister', '--verb=list', '--resource=nodes', '-n', 'team-a', '--as', 'alice']);
    assert.match(role, /roles.rbac.authorization.k8s.io "node-lister" is forbidden: user "alice" .* is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["nodes"\], Verbs:\["list"\]\}/);
    assert.equal((await k.exec(['get', 'rolebinding', 'frank-root', '-n', 'team-a'])).code, 1, 'nothing was stored');
    // with bind on the cluster role, binding it is fine
    await k.ok(['create', 'clusterrole', 'binds-node-reader', '--verb=bind', '--resource=clusterroles', '--resource-name=node-reader']);
    await k.ok(['create', 'rolebinding', 'alice-binds', '--clusterrole=binds-node-reader', '--user=alice', '-n', 'team-a']);
    await waitFor('bind to take effect', async () =>
      (await k.exec(['create', 'rolebinding', 'frank-nodes', '--clusterrole=node-reader', '--user=frank', '-n', 'team-a', '--as', 'alice'])).code === 0,
    );
  });
});
