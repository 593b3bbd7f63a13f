import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NamedRuleWithOperations, ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { fieldErrorMessage } from '../../../api/validation/field-error.js';
import { toCel } from '../../cel/cel-value.js';
import type { AdmissionAttributes } from '../admission.js';
import { compilePolicy } from './compiled-policy.js';
import { matchesResources } from './match-resources.js';
import { evaluatePolicy } from './policy-evaluation.js';
import { validateValidatingAdmissionPolicy, validateValidatingAdmissionPolicyBinding } from './policy-validation.js';

const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
  resource: { group: 'apps', version: 'v1', resource: 'deployments' },
  subresource: '',
  namespace: 'default',
  name: 'web',
  object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { tier: 'front' } }, spec: { replicas: 5 } },
  dryRun: false,
  user: { name: 'alice', groups: [] },
  ...over,
});

// NamedRuleWithOperations embeds its Rule inline; kubernetes-types cannot spell that
const rule = { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'], scope: '*' } as NamedRuleWithOperations;

describe('matchConstraints', () => {
  it('matches operations, groups, resources, subresources, names and selectors', () => {
    const t = { attrs: attrs(), namespaced: true, namespaceLabels: { env: 'prod' } };
    assert.equal(matchesResources({ resourceRules: [rule] }, t, true), true);
    assert.equal(matchesResources({ resourceRules: [{ ...rule, operations: ['DELETE'] } as NamedRuleWithOperations] }, t, true), false);
    assert.equal(matchesResources({ resourceRules: [{ ...rule, resources: ['deployments/scale'] } as NamedRuleWithOperations] }, t, true), false);
    assert.equal(matchesResources({ resourceRules: [{ ...rule, resources: ['*/scale'] } as NamedRuleWithOperations] }, { ...t, attrs: attrs({ subresource: 'scale' }) }, true), true);
    assert.equal(matchesResources({ resourceRules: [{ ...rule, resourceNames: ['other'] }] }, t, true), false);
    assert.equal(matchesResources({ resourceRules: [{ ...rule, scope: 'Cluster' } as NamedRuleWithOperations] }, t, true), false);
    assert.equal(matchesResources({ resourceRules: [rule], excludeResourceRules: [rule] }, t, true), false);
    assert.equal(matchesResources({ resourceRules: [rule], namespaceSelector: { matchLabels: { env: 'dev' } } }, t, true), false);
    assert.equal(matchesResources({ resourceRules: [rule], objectSelector: { matchLabels: { tier: 'front' } } }, t, true), true);
    assert.equal(matchesResources({ resourceRules: [rule], objectSelector: { matchLabels: { tier: 'back' } } }, t, true), false);
    // a binding without resourceRules does not narrow the match
    assert.equal(matchesResources({ namespaceSelector: {} }, t, false), true);
    assert.equal(matchesResources(undefined, t, false), true);
  });
});

function policy(spec: ValidatingAdmissionPolicy['spec']): ValidatingAdmissionPolicy {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' }, spec };
}

const vars = (a = attrs(), params: unknown = null) => ({ object: toCel(a.object).value, oldObject: null, request: toCel({ operation: a.operation }).value, namespaceObject: null, params: toCel(params).value });

describe('policy evaluation', () => {
  it('reports failed validations with message, messageExpression or the expression', () => {
    const p = compilePolicy(
      policy({
        matchConstraints: { resourceRules: [rule] },
        variables: [{ name: 'max', expression: 'int(params.max)' }],
        validations: [
          { expression: 'object.spec.replicas <= variables.max', messageExpression: "'at most ' + string(variables.max)" },
          { expression: "object.metadata.name != 'web'", message: 'not web', reason: 'Forbidden' },
          { expression: "request.operation == 'CREATE'" },
          { expression: 'object.spec.replicas < 2' },
        ],
      }),
    );
    const out = evaluatePolicy(p, vars(attrs(), { max: '3' }));
    assert.deepEqual(out, {
      skipped: false,
      violations: [
        { message: 'at most 3', reason: 'Invalid', expressionIndex: 0 },
        { message: 'not web', reason: 'Forbidden', expressionIndex: 1 },
        { message: 'failed expression: object.spec.replicas < 2', reason: 'Invalid', expressionIndex: 3 },
      ],
    });
  });

  it('skips on a false match condition; errors follow failurePolicy', () => {
    const base = { matchConstraints: { resourceRules: [rule] }, validations: [{ expression: 'object.spec.missing > 1' }] };
    assert.deepEqual(evaluatePolicy(compilePolicy(policy({ ...base, matchConditions: [{ name: 'never', expression: 'false' }] })), vars()), { skipped: true });
    const fail = evaluatePolicy(compilePolicy(policy(base)), vars());
    assert.deepEqual(fail, { skipped: false, violations: [{ message: "expression 'object.spec.missing > 1' resulted in error: no such key: missing", reason: 'Invalid', expressionIndex: -1 }] });
    assert.deepEqual(evaluatePolicy(compilePolicy(policy({ ...base, failurePolicy: 'Ignore' })), vars()), { skipped: false, violations: [] });
  });
});

describe('policy validation', () => {
  it('refuses expressions that do not compile and incomplete specs, with upstream paths', () => {
    const msgs = validateValidatingAdmissionPolicy(policy({ validations: [{ expression: 'object.spec.replicas <' }, { expression: 'true', reason: 'Teapot' }] })).map(fieldErrorMessage);
    assert.equal(msgs[0], 'spec.matchConstraints: Required value');
    assert.match(msgs[1] ?? '', /^spec\.validations\[0\]\.expression: Invalid value: "object\.spec\.replicas <": compilation failed: ERROR: <input>:1:\d+: /);
    assert.equal(msgs[2], 'spec.validations[1].reason: Unsupported value: "Teapot": supported values: "Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge"');
    assert.equal(msgs.length, 3);
  });

  it('checks bindings: policy name, actions, paramRef', () => {
    const msgs = validateValidatingAdmissionPolicyBinding({
      metadata: { name: 'b' },
      spec: { validationActions: ['Deny', 'Warn', 'Deny'], paramRef: { name: 'x', selector: {} } },
    }).map(fieldErrorMessage);
    assert.deepEqual(msgs, [
      'spec.policyName: Required value',
      'spec.validationActions[2]: Duplicate value: "Deny"',
      'spec.validationActions: Invalid value: ["Deny","Warn","Deny"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.parameterNotFoundAction: Required value',
    ]);
  });
});
