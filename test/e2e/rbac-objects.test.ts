import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';
import { RBAC_MANIFESTS } from './rbac-manifests.js';

describe('rbac.authorization.k8s.io/v1 objects', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  before(async () => {
    server = await startServer({ args: ['--disable', 'kubelet,scheduler'] });
    k = kubectlFor(server.kubeconfig);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('accepts the RBAC objects of real install manifests with kubectl apply', async () => {
    const out = await k.ok(['apply', '-f', '-'], { input: RBAC_MANIFESTS });
    const docs = RBAC_MANIFESTS.split(/^---$/m).length;
    const lines = out.trim().split('\n');
    assert.equal(lines.length, docs, out);
    // skiff's own DNS runs as system:coredns, so CoreDNS's ClusterRole and binding exist already and are updated
    for (const line of lines) assert.match(line, /^(clusterrole|clusterrolebinding)\.rbac\.authorization\.k8s\.io\/system:coredns configured$| created$/);
    // applying again changes nothing
    for (const line of (await k.ok(['apply', '-f', '-'], { input: RBAC_MANIFESTS })).trim().split('\n')) assert.match(line, / unchanged$/);
    const role = await k.json<{ rules: { resourceNames?: string[] }[] }>(['get', 'role', 'ingress-nginx', '-n', 'ingress-nginx']);
    assert.deepEqual(role.rules[2].resourceNames, ['ingress-nginx-leader']);
    await k.ok(['apply', '-f', '-'], {
      input: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: defaults}\nroleRef: {kind: ClusterRole, name: view}\nsubjects: [{kind: User, name: u}, {kind: Group, name: g}, {kind: ServiceAccount, name: s, namespace: ns1}]\n',
    });
    const crb = await k.json<{ roleRef: { apiGroup: string }; subjects: { apiGroup?: string }[] }>(['get', 'clusterrolebinding', 'defaults']);
    assert.equal(crb.roleRef.apiGroup, 'rbac.authorization.k8s.io');
    assert.deepEqual(
      crb.subjects.map((s) => s.apiGroup ?? ''),
      ['rbac.authorization.k8s.io', 'rbac.authorization.k8s.io', ''],
      'User and Group subjects default to the RBAC group',
    );
  });

  it('prints bindings as upstream (Role column; users, groups, service accounts when wide)', async () => {
    const wide = await k.ok(['get', 'clusterrolebinding', 'kube-state-metrics', '-o', 'wide']);
    assert.match(wide.split('\n')[0], /^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS$/);
    assert.match(wide.split('\n')[1], /^kube-state-metrics\s+ClusterRole\/kube-state-metrics\s+\S+\s+jane\s+system:monitoring\s+kube-system\/kube-state-metrics$/);
    const roles = await k.ok(['get', 'roles', '-n', 'ingress-nginx']);
    assert.match(roles, /^NAME\s+CREATED AT\n ?ingress-nginx\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
  });

  it('kubectl create role/rolebinding/clusterrole (protobuf bodies) and refuses bad ones with upstream messages', async () => {
    await k.ok(['create', 'namespace', 'team-a']);
    await k.ok(['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods,pods/log', '-n', 'team-a']);
    await k.ok(['create', 'rolebinding', 'read-pods', '--role=pod-reader', '--user=jane', '--serviceaccount=team-a:robot', '-n', 'team-a']);
    await k.ok(['create', 'clusterrole', 'url-reader', '--verb=get', '--non-resource-url=/logs/*']);
    const rb = await k.json<{ roleRef: { apiGroup: string; kind: string; name: string } }>(['get', 'rolebinding', 'read-pods', '-n', 'team-a']);
    assert.deepEqual(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' });

    const bad = await k.fails(['apply', '-f', '-'], {
      input: `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: bad}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: x}
subjects: [{kind: ServiceAccount, name: default}]
`,
    });
    assert.match(bad, /The ClusterRoleBinding "bad" is invalid: \n\* roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"\n\* subjects\[0\].namespace: Required value/);
    const noVerbs = await k.fails(['apply', '-f', '-'], {
      input: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r, namespace: team-a}\nrules: [{apiGroups: [""], resources: [pods]}]\n',
    });
    assert.match(noVerbs, /rules\[0\].verbs: Required value: verbs must contain at least one value/);
    // the role a binding refers to cannot change
    const changed = await k.fails(['patch', 'rolebinding', 'read-pods', '-n', 'team-a', '--type=merge', '-p', '{"roleRef":{"kind":"ClusterRole","name":"view"}}']);
    assert.match(changed, /cannot change roleRef/);
  });

  it('starts with the default policy, aggregated, and reconciles it at restart without clobbering changes', async () => {
    const crb = await k.json<{ roleRef: { name: string }; subjects: { kind: string; name: string }[] }>(['get', 'clusterrolebinding', 'cluster-admin']);
    assert.deepEqual(crb.subjects.map((s) => `${s.kind}/${s.name}`), ['Group/system:masters']);
    type Rules = { rules?: { apiGroups?: string[]; resources?: string[]; verbs: string[] }[] };
    // view ⊂ edit ⊂ admin through aggregation labels
    const admin = await waitFor('admin to aggregate edit and view', async () => {
      const r = await k.json<Rules>(['get', 'clusterrole', 'admin']);
      const resources = new Set((r.rules ?? []).flatMap((x) => x.resources ?? []));
      return resources.has('rolebindings') && resources.has('pods/exec') && resources.has('pods/log') ? r : undefined;
    });
    assert.ok(admin.rules?.some((r) => r.resources?.includes('metrics.k8s.io') || r.apiGroups?.includes('metrics.k8s.io')), 'metrics-server aggregated-metrics-reader joined admin');
    // a user edit: one rule removed, one added; and an opted-out role
    await k.ok(['patch', 'clusterrole', 'system:basic-user', '--type=json', '-p', '[{"op":"replace","path":"/rules","value":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get"]}]}]']);
    await k.ok(['annotate', '--overwrite', 'clusterrole', 'system:heapster', 'rbac.authorization.kubernetes.io/autoupdate=false']);
    await k.ok(['patch', 'clusterrole', 'system:heapster', '--type=json', '-p', '[{"op":"replace","path":"/rules","value":[]}]']);
    await server.stop();
    server = await startServer({ dataDir: server.dataDir, args: ['--disable', 'kubelet,scheduler'] });
    k = kubectlFor(server.kubeconfig);
    const basic = await k.json<Rules>(['get', 'clusterrole', 'system:basic-user']);
    assert.deepEqual(basic.rules?.[0], { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }, 'the user rule stays');
    assert.deepEqual(
      basic.rules?.slice(1).map((r) => r.resources?.[0]).sort(),
      ['selfsubjectaccessreviews', 'selfsubjectreviews', 'selfsubjectrulesreviews'],
      'the missing default rules are back',
    );
    assert.deepEqual((await k.json<Rules>(['get', 'clusterrole', 'system:heapster'])).rules ?? [], [], 'autoupdate=false is left alone');
  });

  it('aggregates ClusterRoles selected by an aggregationRule, and follows changes', async () => {
    await k.ok(['apply', '-f', '-'], {
      input: `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: monitoring}
aggregationRule:
  clusterRoleSelectors:
  - matchLabels: {rbac.example.com/aggregate-to-monitoring: "true"}
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: monitoring-endpoints
  labels: {rbac.example.com/aggregate-to-monitoring: "true"}
rules:
- apiGroups: [""]
  resources: [services, endpointslices, pods]
  verbs: [get, list, watch]
`,
    });
    type Rules = { rules?: { resources?: string[] }[] };
    await waitFor('the aggregated rules', async () => (await k.json<Rules>(['get', 'clusterrole', 'monitoring'])).rules?.length === 1);
    await k.ok(['create', 'clusterrole', 'monitoring-secrets', '--verb=get', '--resource=secrets']);
    await k.ok(['label', 'clusterrole', 'monitoring-secrets', 'rbac.example.com/aggregate-to-monitoring=true']);
    const both = await waitFor('the second role to be aggregated', async () => {
      const r = await k.json<Rules>(['get', 'clusterrole', 'monitoring']);
      return r.rules?.length === 2 ? r : undefined;
    });
    assert.deepEqual(both.rules?.map((r) => r.resources), [['services', 'endpointslices', 'pods'], ['secrets']]);
    await k.ok(['delete', 'clusterrole', 'monitoring-endpoints']);
    await waitFor('the deleted role to drop out', async () => (await k.json<Rules>(['get', 'clusterrole', 'monitoring'])).rules?.length === 1);
  });
});
