import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AdmissionAttributes } from '../admission.js';
import { InvalidAdmissionResponse, verifyAdmissionResponse } from './admission-review.js';
import { denial } from './webhook-dispatcher.js';
import { namespaceMatches, objectMatches, ruleMatches } from './webhook-match.js';

const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  subresource: '',
  namespace: 'ns',
  name: 'p',
  dryRun: false,
  user: { name: 'u', groups: [] },
  ...over,
});
const pods = { group: '', version: 'v1', resource: 'pods', subresource: '' };
const rule = (resources: string[], extra = {}) => ({ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources, ...extra });

describe('webhook rules (upstream rules.Matcher)', () => {
  it('matches resources and subresources with wildcards', () => {
    assert.equal(ruleMatches(rule(['pods']), attrs(), pods), true);
    assert.equal(ruleMatches(rule(['pods']), attrs(), { ...pods, subresource: 'status' }), false);
    assert.equal(ruleMatches(rule(['pods/status']), attrs(), { ...pods, subresource: 'status' }), true);
    assert.equal(ruleMatches(rule(['pods/*']), attrs(), { ...pods, subresource: 'status' }), true);
    assert.equal(ruleMatches(rule(['*']), attrs(), { ...pods, subresource: 'status' }), false);
    assert.equal(ruleMatches(rule(['*/status']), attrs(), { ...pods, subresource: 'status' }), true);
    assert.equal(ruleMatches(rule(['*/*']), attrs(), pods), true);
    assert.equal(ruleMatches({ ...rule(['pods']), operations: ['*'] }, attrs({ operation: 'DELETE' }), pods), true);
    assert.equal(ruleMatches(rule(['pods']), attrs({ operation: 'DELETE' }), pods), false);
    assert.equal(ruleMatches({ ...rule(['pods']), apiGroups: ['apps'] }, attrs(), pods), false);
  });

  it('scope: Namespaced excludes cluster-scoped objects and Namespaces; Cluster includes Namespaces', () => {
    const ns = { group: '', version: 'v1', resource: 'namespaces', subresource: '' };
    assert.equal(ruleMatches(rule(['*'], { scope: 'Namespaced' }), attrs(), pods), true);
    assert.equal(ruleMatches(rule(['*'], { scope: 'Namespaced' }), attrs({ namespace: '' }), ns), false);
    assert.equal(ruleMatches(rule(['*'], { scope: 'Cluster' }), attrs({ namespace: 'x' }), ns), true);
    assert.equal(ruleMatches(rule(['*'], { scope: 'Cluster' }), attrs(), pods), false);
  });

  it('selectors: namespace labels, a Namespace by its own labels, either object for objectSelector', () => {
    const sel = { matchLabels: { team: 'a' } };
    assert.equal(namespaceMatches(sel, attrs(), { team: 'a' }), true);
    assert.equal(namespaceMatches(sel, attrs(), { team: 'b' }), false);
    assert.equal(namespaceMatches(sel, attrs({ namespace: '', resource: { group: '', version: 'v1', resource: 'nodes' } }), undefined), true);
    const nsObj = { metadata: { name: 'x', labels: { team: 'a' } } };
    assert.equal(namespaceMatches(sel, attrs({ namespace: 'x', resource: { group: '', version: 'v1', resource: 'namespaces' }, object: nsObj }), undefined), true);
    assert.equal(objectMatches(sel, attrs({ object: { metadata: { labels: {} } }, oldObject: { metadata: { labels: { team: 'a' } } } })), true);
    assert.equal(objectMatches(sel, attrs({ operation: 'DELETE' })), false);
    assert.equal(objectMatches({}, attrs()), true);
  });
});

describe('AdmissionReview responses (upstream VerifyAdmissionResponse)', () => {
  const ok = (response: object) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u1', ...response } });
  it('checks kind, uid and patch fields', () => {
    const msg = (body: unknown, mutating = true) => {
      try {
        verifyAdmissionResponse('u1', mutating, body);
        return '';
      } catch (err) {
        assert.ok(err instanceof InvalidAdmissionResponse);
        return err.message;
      }
    };
    assert.equal(msg({}), 'webhook response was absent');
    assert.equal(msg({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { uid: 'u1' } }), 'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview');
    assert.equal(msg(ok({ uid: 'other' })), 'expected response.uid="u1", got "other"');
    assert.equal(msg(ok({ allowed: true, patch: 'W10=' })), 'webhook returned response.patch but not response.patchType');
    assert.equal(msg(ok({ allowed: true, patch: 'W10=', patchType: 'Merge' })), 'webhook returned invalid response.patchType of "Merge"');
    assert.equal(msg(ok({ allowed: true, patch: 'W10=', patchType: 'JSONPatch' }), false), 'validating webhook may not return response.patch or response.patchType');
    assert.deepEqual(verifyAdmissionResponse('u1', true, ok({ allowed: true, patch: 'W10=', patchType: 'JSONPatch', warnings: ['w'] })).patch, []);
  });

  it("a denial keeps the webhook's status, prefixed with who denied it (code at least 400)", () => {
    assert.equal(denial('x.example.com', { message: 'no' }).message, 'admission webhook "x.example.com" denied the request: no');
    assert.equal(denial('x.example.com', { message: 'no' }).code, 400);
    assert.equal(denial('x.example.com', { code: 403, reason: 'Forbidden' }).message, 'admission webhook "x.example.com" denied the request: Forbidden');
    assert.equal(denial('x.example.com', undefined).message, 'admission webhook "x.example.com" denied the request without explanation');
  });
});
