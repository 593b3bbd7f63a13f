import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AlwaysAllowAuthenticated } from './always-allow.js';
import { AuthorizerChain } from './authorizer-chain.js';
import type { Attributes, Authorizer, Decision } from './authorizer.js';
import { forbiddenError } from './forbidden.js';
import { PublicInfoAuthorizer } from './public-info.js';

const jane = { name: 'jane', groups: ['system:authenticated'] };
const anonymous = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

function attrs(over: Partial<Attributes>): Attributes {
  return { user: jane, verb: 'get', resourceRequest: true, apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', namespace: '', name: '', path: '', ...over };
}

const answering = (decision: Decision, reason = ''): Authorizer & { calls: number } => ({
  name: decision,
  calls: 0,
  async authorize() {
    this.calls++;
    return { decision, reason };
  },
});

describe('AuthorizerChain', () => {
  it('the first Allow or Deny decides; later authorizers are not asked', async () => {
    const later = answering('Allow');
    const chain = new AuthorizerChain([answering('NoOpinion'), answering('Deny', 'nope'), later]);
    assert.deepEqual(await chain.authorize(attrs({})), { decision: 'Deny', reason: 'nope' });
    assert.equal(later.calls, 0);
  });

  it('no opinion from anyone is no opinion (the server refuses)', async () => {
    const chain = new AuthorizerChain([answering('NoOpinion', 'no RBAC rule'), answering('NoOpinion')]);
    assert.deepEqual(await chain.authorize(attrs({})), { decision: 'NoOpinion', reason: 'no RBAC rule' });
  });

  it("today's policy: authenticated users may do anything, anyone may get the public paths", async () => {
    const chain = new AuthorizerChain([new PublicInfoAuthorizer(), new AlwaysAllowAuthenticated()]);
    assert.equal((await chain.authorize(attrs({ verb: 'delete' }))).decision, 'Allow');
    assert.equal((await chain.authorize(attrs({ user: anonymous, resourceRequest: false, path: '/healthz' }))).decision, 'Allow');
    assert.equal((await chain.authorize(attrs({ user: anonymous, resourceRequest: false, verb: 'create', path: '/healthz' }))).decision, 'NoOpinion');
    assert.equal((await chain.authorize(attrs({ user: anonymous }))).decision, 'NoOpinion');
  });
});

describe('forbiddenError', () => {
  it('words a namespaced, named request as upstream', () => {
    const err = forbiddenError(attrs({ verb: 'create', namespace: 'y' }), '');
    assert.equal(err.code, 403);
    assert.equal(err.message, 'pods is forbidden: User "jane" cannot create resource "pods" in API group "" in the namespace "y"');
    assert.equal(
      forbiddenError(attrs({ name: 'web', namespace: 'y' }), '').message,
      'pods "web" is forbidden: User "jane" cannot get resource "pods" in API group "" in the namespace "y"',
    );
    assert.deepEqual(forbiddenError(attrs({ name: 'web', namespace: 'y' }), '').details, { name: 'web', group: undefined, kind: 'pods' });
  });

  it('cluster scope, groups, subresources and reasons', () => {
    assert.equal(
      forbiddenError(attrs({ verb: 'list', apiGroup: 'apps', resource: 'deployments' }), '').message,
      'deployments.apps is forbidden: User "jane" cannot list resource "deployments" in API group "apps" at the cluster scope',
    );
    assert.equal(
      forbiddenError(attrs({ verb: 'update', resource: 'pods', subresource: 'status', name: 'web', namespace: 'y' }), 'no rule').message,
      'pods "web" is forbidden: User "jane" cannot update resource "pods/status" in API group "" in the namespace "y": no rule',
    );
  });

  it('non-resource URLs', () => {
    const err = forbiddenError(attrs({ resourceRequest: false, path: '/metrics', user: anonymous }), '');
    assert.equal(err.message, 'forbidden: User "system:anonymous" cannot get path "/metrics"');
  });
});
