import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

// ValidatingAdmissionPolicy + ValidatingAdmissionPolicyBinding with the real
// kubectl: a policy (with a param object and a variable) denies Deployments
// above a replica limit with upstream's message; a Warn binding turns a
// failed validation into a Warning kubectl prints; a policy whose
// expression does not compile is refused.

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit.skiff.dev}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  variables:
  - name: maxReplicas
    expression: "int(params.data.maxReplicas)"
  validations:
  - expression: "object.spec.replicas <= variables.maxReplicas"
    messageExpression: "'replicas must be no greater than ' + string(variables.maxReplicas)"
    reason: Invalid
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-binding}
spec:
  policyName: replica-limit.skiff.dev
  validationActions: [Deny]
  paramRef: {name: replica-limit, namespace: default, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector:
      matchLabels: {policy: enforced}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: replica-limit, namespace: default}
data: {maxReplicas: "3"}
`;

const WARN = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: team-label.skiff.dev}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [configmaps]
  matchConditions:
  - name: not-system
    expression: "!object.metadata.name.startsWith('kube-')"
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    message: every ConfigMap needs a team label
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: team-label-warn}
spec:
  policyName: team-label.skiff.dev
  validationActions: [Warn, Audit]
`;

const deployment = (name: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: default}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: c, image: busybox}]
`;

describe('ValidatingAdmissionPolicy with kubectl', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;

  before(async () => {
    server = await startServer();
    k = kubectlFor(server.kubeconfig);
  });

  after(async () => {
    await server?.stop();
    await removeDir(server?.dataDir);
  });

  /** The stderr of a refused apply; an admitted Deployment is deleted so the next try is a create again. */
  async function applyUntilRefused(manifest: string, name: string): Promise<string | undefined> {
    const r = await k.exec(['apply', '-f', '-'], { input: manifest });
    if (r.code !== 0) return r.stderr;
    await k.ok(['delete', 'deployment', name, '--wait=false']);
    return undefined;
  }

  it('denies a Deployment above the limit with its message', async () => {
    await k.ok(['label', 'namespace', 'default', 'policy=enforced']);
    await k.ok(['apply', '-f', '-'], { input: POLICY });
    assert.match(await k.ok(['get', 'validatingadmissionpolicies']), /replica-limit.skiff.dev\s+1\s+v1\/ConfigMap/);
    // policies take effect shortly after they are written
    // until then an apply creates the Deployment, and re-applying it unchanged
    // sends nothing; so an admitted one is removed before the next try
    const err = await waitFor('the policy to deny', () => applyUntilRefused(deployment('big', 5), 'big'));
    assert.match(
      err,
      // kubectl prints a 422's causes as `field: message`; upstream's cause has no field (as in the Kubernetes docs)
      /The deployments "big" is invalid: : ValidatingAdmissionPolicy 'replica-limit.skiff.dev' with binding 'replica-limit-binding' denied request: replicas must be no greater than 3/,
    );
    await k.ok(['apply', '-f', '-'], { input: deployment('small', 2) });
    // scaling up through an update is judged too
    const scaled = await k.fails(['patch', 'deployment', 'small', '--type', 'merge', '-p', '{"spec":{"replicas":4}}']);
    assert.match(scaled, /denied request: replicas must be no greater than 3/);
    // a namespace the binding does not select is not judged
    await k.ok(['create', 'namespace', 'free']);
    await k.ok(['apply', '-n', 'free', '-f', '-'], { input: deployment('big', 5).replace('namespace: default', 'namespace: free') });
  });

  it('a missing param denies under parameterNotFoundAction Deny', async () => {
    await k.ok(['delete', 'configmap', 'replica-limit']);
    const err = await waitFor('the missing param to deny', () => applyUntilRefused(deployment('other', 1), 'other'));
    assert.match(err, /denied request: no params found for policy binding with `Deny` parameterNotFoundAction/);
  });

  it('a Warn binding prints a kubectl Warning and admits', async () => {
    await k.ok(['apply', '-f', '-'], { input: WARN });
    const out = await waitFor('the warning', async () => {
      const name = `cm-${Math.random().toString(36).slice(2, 8)}`;
      const r = await k.exec(['create', 'configmap', name]);
      assert.equal(r.code, 0, r.stderr);
      return r.stderr.includes('Warning') ? r.stderr : undefined;
    });
    assert.match(out, /Warning: Validation failed for ValidatingAdmissionPolicy 'team-label.skiff.dev' with binding 'team-label-warn': every ConfigMap needs a team label/);
    const labelled = await k.exec(['apply', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: labelled, namespace: default, labels: {team: web}}\n' });
    assert.equal(labelled.code, 0);
    assert.doesNotMatch(labelled.stderr, /Warning/);
  });

  it('refuses a policy whose expression does not compile', async () => {
    const bad = WARN.split('---')[0]!.replace('team-label.skiff.dev', 'broken.skiff.dev').replace("'team' in object.metadata.labels", "'team' in object.metadata.labels &&");
    const err = await k.fails(['apply', '-f', '-'], { input: bad });
    assert.match(err, /The ValidatingAdmissionPolicy "broken.skiff.dev" is invalid: spec.validations\[0\].expression: Invalid value: ".*": compilation failed: ERROR: <input>:1:\d+: /);
  });
});
