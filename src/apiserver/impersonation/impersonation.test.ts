import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { ApiError } from '../../machinery/api-error.js';
import type { UserInfo } from '../authentication/user-info.js';
import type { Attributes, Authorizer } from '../authorization/authorizer.js';
import { impersonate } from './impersonation.js';

const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };

function request(headers: Record<string, string[]>): Pick<IncomingMessage, 'headers' | 'headersDistinct'> {
  return { headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.join(', ')])), headersDistinct: headers };
}

/** Allows impersonating anything except what `deny` matches; records every check. */
function recorder(deny: (a: Attributes) => boolean = () => false): Authorizer & { seen: Attributes[] } {
  const seen: Attributes[] = [];
  return {
    name: 'test',
    seen,
    async authorize(attrs) {
      seen.push(attrs);
      return { decision: deny(attrs) ? 'NoOpinion' : 'Allow', reason: '' };
    },
  };
}

describe('impersonation', () => {
  it('without headers the requester stays', async () => {
    const authz = recorder();
    assert.equal(await impersonate(request({}), alice, authz), alice);
    assert.equal(authz.seen.length, 0);
  });

  it('acts as the user with the groups, uid and extras asked for, each authorized as verb impersonate', async () => {
    const authz = recorder();
    const req = request({
      'impersonate-user': ['jane'],
      'impersonate-group': ['dev', 'ops'],
      'impersonate-uid': ['1234'],
      'impersonate-extra-scopes': ['view', 'edit'],
      'impersonate-extra-example.com%2fteam': ['blue'],
    });
    const user = await impersonate(req, alice, authz);
    assert.deepEqual(user, {
      name: 'jane',
      uid: '1234',
      groups: ['dev', 'ops', 'system:authenticated'],
      extra: { scopes: ['view', 'edit'], 'example.com/team': ['blue'] },
    });
    assert.deepEqual(
      authz.seen.map((a) => [a.user.name, a.verb, a.apiGroup, a.resource, a.subresource, a.name]),
      [
        ['alice', 'impersonate', '', 'users', '', 'jane'],
        ['alice', 'impersonate', '', 'groups', '', 'dev'],
        ['alice', 'impersonate', '', 'groups', '', 'ops'],
        ['alice', 'impersonate', 'authentication.k8s.io', 'userextras', 'scopes', 'view'],
        ['alice', 'impersonate', 'authentication.k8s.io', 'userextras', 'scopes', 'edit'],
        ['alice', 'impersonate', 'authentication.k8s.io', 'userextras', 'example.com/team', 'blue'],
        ['alice', 'impersonate', 'authentication.k8s.io', 'uids', '', '1234'],
      ],
    );
    assert.equal(req.headers['impersonate-user'], undefined, 'the headers are removed');
  });

  it('a service account is checked as serviceaccounts in its namespace and gets its groups', async () => {
    const authz = recorder();
    const user = await impersonate(request({ 'impersonate-user': ['system:serviceaccount:team-a:builder'] }), alice, authz);
    assert.deepEqual(user, {
      name: 'system:serviceaccount:team-a:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
    });
    assert.deepEqual([authz.seen[0].resource, authz.seen[0].namespace, authz.seen[0].name], ['serviceaccounts', 'team-a', 'builder']);
  });

  it('impersonating anonymous puts it in system:unauthenticated', async () => {
    const user = await impersonate(request({ 'impersonate-user': ['system:anonymous'] }), alice, recorder());
    assert.deepEqual(user.groups, ['system:unauthenticated']);
  });

  it('a refused impersonation is a 403 worded as upstream', async () => {
    const authz = recorder((a) => a.resource === 'groups');
    await assert.rejects(impersonate(request({ 'impersonate-user': ['jane'], 'impersonate-group': ['system:masters'] }), alice, authz), (err: unknown) => {
      assert.ok(ApiError.is(err, 'Forbidden'));
      assert.equal(err.message, 'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope');
      return true;
    });
    const sa = recorder(() => true);
    await assert.rejects(impersonate(request({ 'impersonate-user': ['system:serviceaccount:ns:sa'] }), alice, sa), {
      message: 'serviceaccounts "sa" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns"',
    });
  });

  it('groups or extras without a user are refused (500, as upstream)', async () => {
    await assert.rejects(impersonate(request({ 'impersonate-group': ['dev'] }), alice, recorder()), (err: unknown) => {
      assert.ok(ApiError.is(err, 'InternalError'));
      assert.match(err.message, /requested \{Group dev\} without impersonating a user/);
      return true;
    });
  });
});
