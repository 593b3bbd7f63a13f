import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { AuditPolicyError, parsePolicy } from './policy.js';
import { policyRuleEvaluator, type AuditAttributes } from './policy-rule-evaluator.js';

const alice = { name: 'alice', groups: ['devs', 'system:authenticated'] };

function req(over: Partial<AuditAttributes>): AuditAttributes {
  return { user: alice, verb: 'get', resourceRequest: true, apiGroup: '', resource: 'pods', subresource: '', namespace: 'default', name: 'p', path: '/api/v1/namespaces/default/pods/p', ...over };
}

function nonResource(path: string, over: Partial<AuditAttributes> = {}): AuditAttributes {
  return { user: alice, verb: 'get', resourceRequest: false, apiGroup: '', resource: '', subresource: '', namespace: '', name: '', path, ...over };
}

const POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    users: [system:kube-proxy]
    verbs: [watch]
  - level: None
    nonResourceURLs: ["/healthz*", /version]
  - level: Metadata
    resources:
      - group: ""
        resources: [secrets, configmaps]
      - group: authentication.k8s.io
        resources: [tokenreviews]
  - level: Request
    userGroups: [system:nodes]
    resources:
      - group: ""
        resources: [pods/status, "*/scale"]
  - level: RequestResponse
    namespaces: [team-a]
    omitStages: [ResponseStarted]
    omitManagedFields: true
  - level: Request
    resources:
      - group: apps
        resources: [deployments]
        resourceNames: [web]
      - group: batch
        resources: ["jobs/*"]
      - group: rbac.authorization.k8s.io
  - level: Metadata
`;

describe('audit policy matching (upstream policy checker semantics)', () => {
  const evaluate = policyRuleEvaluator(parsePolicy(POLICY));
  const cases: [string, AuditAttributes, string][] = [
    ['user and verb both match', req({ user: { name: 'system:kube-proxy', groups: [] }, verb: 'watch', resource: 'services' }), 'None'],
    ['user matches but not the verb', req({ user: { name: 'system:kube-proxy', groups: [] }, verb: 'list', resource: 'services' }), 'Metadata'],
    ['non-resource URL with a * suffix', nonResource('/healthz/etcd'), 'None'],
    ['non-resource URL exact', nonResource('/version'), 'None'],
    ['non-resource URL that only shares a prefix without *', nonResource('/versions'), 'Metadata'],
    ['a nonResourceURLs rule never matches a resource request', req({ path: '/healthz' }), 'Metadata'],
    ['secrets at Metadata even in team-a', req({ resource: 'secrets', namespace: 'team-a' }), 'Metadata'],
    ['configmaps at Metadata', req({ resource: 'configmaps', verb: 'create', namespace: 'x' }), 'Metadata'],
    ['group must match: tokenreviews', req({ apiGroup: 'authentication.k8s.io', resource: 'tokenreviews', namespace: '', verb: 'create' }), 'Metadata'],
    ['resource/subresource for a user group', req({ user: { name: 'system:node:n1', groups: ['system:nodes'] }, resource: 'pods', subresource: 'status', verb: 'patch', namespace: 'x' }), 'Request'],
    ['the same subresource for another user', req({ resource: 'pods', subresource: 'status', verb: 'patch', namespace: 'x' }), 'Metadata'],
    ['*/scale matches any scale subresource', req({ user: { name: 'n', groups: ['system:nodes'] }, apiGroup: '', resource: 'replicationcontrollers', subresource: 'scale', namespace: 'x' }), 'Request'],
    ['a pod itself is not pods/status', req({ user: { name: 'n', groups: ['system:nodes'] }, namespace: 'x' }), 'Metadata'],
    ['namespace rule matches anything in it', req({ namespace: 'team-a', resource: 'pods' }), 'RequestResponse'],
    ['namespace rule does not match cluster-scoped objects', req({ namespace: '', resource: 'nodes' }), 'Metadata'],
    ['resourceNames restrict the match', req({ apiGroup: 'apps', resource: 'deployments', name: 'web', namespace: 'x' }), 'Request'],
    ['another name does not match', req({ apiGroup: 'apps', resource: 'deployments', name: 'api', namespace: 'x' }), 'Metadata'],
    ['a list has no name: resourceNames do not match', req({ apiGroup: 'apps', resource: 'deployments', name: '', verb: 'list', namespace: 'x' }), 'Metadata'],
    ['resource/* matches the resource itself', req({ apiGroup: 'batch', resource: 'jobs', namespace: 'x' }), 'Request'],
    ['resource/* matches its subresources', req({ apiGroup: 'batch', resource: 'jobs', subresource: 'status', namespace: 'x' }), 'Request'],
    ['a group without resources matches all of it', req({ apiGroup: 'rbac.authorization.k8s.io', resource: 'roles', namespace: 'x' }), 'Request'],
    ['same resource name in another group does not match', req({ apiGroup: 'example.com', resource: 'secrets', namespace: 'x' }), 'Metadata'],
    ['a failed authentication has no user: user rules never match', req({ user: undefined, verb: 'watch', resource: 'services' }), 'Metadata'],
  ];
  for (const [name, attrs, level] of cases) {
    it(name, () => assert.equal(evaluate(attrs).level, level));
  }

  it('stages omitted by the policy and the rule add up; the first match wins', () => {
    const c = evaluate(req({ namespace: 'team-a' }));
    assert.deepEqual([...c.omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
    assert.equal(c.omitManagedFields, true);
    assert.deepEqual([...evaluate(req({ namespace: 'x' })).omitStages], ['RequestReceived']);
  });

  it('no matching rule is level None', () => {
    const only = policyRuleEvaluator(parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  verbs: [create]\n'));
    assert.equal(only(req({ verb: 'get' })).level, 'None');
    assert.equal(only(req({ verb: 'create' })).level, 'Metadata');
  });
});

describe('audit policy validation', () => {
  const bad: [string, string, RegExp][] = [
    ['not YAML', 'rules: [', /failed decoding/],
    ['wrong apiVersion', 'apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]', /unsupported apiVersion "audit.k8s.io\/v1beta1"/],
    ['wrong kind', 'apiVersion: audit.k8s.io/v1\nkind: Pol\nrules: [{level: None}]', /unsupported kind "Pol"/],
    ['no rules', 'apiVersion: audit.k8s.io/v1\nkind: Policy\n', /loaded illegal policy with 0 rules/],
    ['missing level', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{verbs: [get]}]', /rules\[0\]\.level: Required value/],
    ['unknown level', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Everything}]', /rules\[0\]\.level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"/],
    ['unknown stage', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Done]\nrules: [{level: None}]', /omitStages\[0\]: Unsupported value: "Done"/],
    ['resources and URLs together', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, nonResourceURLs: [/x], namespaces: [a]}]', /rules cannot apply to both regular resources and non-resource URLs/],
    ['URL without /', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, nonResourceURLs: [healthz]}]', /must begin with a '\/' character/],
    ['* inside a URL', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, nonResourceURLs: ["/a*/b"]}]', /wildcards '\*' must be the final character/],
    ['resourceNames without resources', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, resources: [{group: "", resourceNames: [x]}]}]', /using resourceNames requires at least one resource/],
    ['verbs not a list', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, verbs: get}]', /rules\[0\]\.verbs: Invalid value: must be a list of strings/],
  ];
  for (const [name, text, message] of bad) {
    it(`refuses ${name}`, () => assert.throws(() => parsePolicy(text), (err: unknown) => err instanceof AuditPolicyError && message.test(err.message)));
  }

  it('accepts JSON as well as YAML', () => {
    const p = parsePolicy(JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Metadata' }] }));
    assert.deepEqual(p.rules, [{ level: 'Metadata' }]);
  });
});

describe('the example policy (examples/audit-policy.yaml)', () => {
  const evaluate = policyRuleEvaluator(parsePolicy(readFileSync(new URL('../../../examples/audit-policy.yaml', import.meta.url), 'utf8')));
  it('never records Secret, ConfigMap or TokenReview bodies', () => {
    for (const verb of ['create', 'update', 'patch', 'delete', 'get']) {
      assert.equal(evaluate(req({ verb, resource: 'secrets' })).level, 'Metadata');
      assert.equal(evaluate(req({ verb, resource: 'configmaps' })).level, 'Metadata');
    }
    assert.equal(evaluate(req({ verb: 'create', apiGroup: 'authentication.k8s.io', resource: 'tokenreviews', namespace: '' })).level, 'Metadata');
    assert.equal(evaluate(req({ verb: 'create', resource: 'serviceaccounts', subresource: 'token' })).level, 'Metadata');
  });
  it('records workload changes with bodies and skips health checks', () => {
    assert.equal(evaluate(req({ verb: 'create', apiGroup: 'apps', resource: 'deployments' })).level, 'RequestResponse');
    assert.equal(evaluate(req({ verb: 'list', apiGroup: 'apps', resource: 'deployments' })).level, 'Metadata');
    assert.equal(evaluate(nonResource('/readyz')).level, 'None');
  });
});
