import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startInProcessServer, type InProcessServer } from '../in-process-server.test-util.js';
import { DEFAULT_AUTHORIZERS } from '../request-pipeline.js';
import type { Authorizer } from '../authorization/authorizer.js';
import { Auditor } from './auditor.js';
import type { AuditEvent } from './event.js';
import { parsePolicy } from './policy.js';
import { policyRuleEvaluator } from './policy-rule-evaluator.js';

const POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    users: [quiet]
  - level: None
    nonResourceURLs: [/healthz*]
  - level: Metadata
    resources: [{group: "", resources: [secrets]}]
  - level: RequestResponse
    omitManagedFields: true
    namespaces: [team]
    resources: [{group: "", resources: [configmaps]}]
  - level: Request
    resources: [{group: "", resources: [pods, services]}]
  - level: Metadata
`;

const events: AuditEvent[] = [];
let srv: InProcessServer;

/** eve may do nothing (the default authorizers let every other authenticated user do everything). */
const denyEve: Authorizer = {
  name: 'deny-eve',
  async authorize(a) {
    return a.user.name === 'eve' ? { decision: 'Deny', reason: 'eve is not trusted' } : { decision: 'NoOpinion', reason: '' };
  },
};

before(async () => {
  srv = await startInProcessServer({
    pipeline: {
      audit: new Auditor({ evaluator: policyRuleEvaluator(parsePolicy(POLICY)), sink: { processEvent: (e) => events.push(e) } }),
      authorizers: () => [denyEve, ...DEFAULT_AUTHORIZERS()],
    },
  });
  await srv.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'team' } } });
});
after(() => srv.stop());
beforeEach(() => (events.length = 0));

function forRequest(auditID: unknown): AuditEvent[] {
  return events.filter((e) => e.auditID === auditID);
}

describe('the audit stage', () => {
  it('records a create at RequestResponse: both stages, the request as sent, the response as stored', async () => {
    const res = await srv.request('POST', '/api/v1/namespaces/team/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { a: '1' } }, headers: { 'User-Agent': 'audit-test/1.0' } });
    assert.equal(res.status, 201);
    const id = res.headers['audit-id'];
    assert.ok(typeof id === 'string' && id.length > 0);
    const got = forRequest(id);
    assert.deepEqual(got.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
    const [received, done] = got;
    assert.equal(received.responseStatus, undefined);
    assert.equal(received.requestObject, undefined);
    assert.equal(done.kind, 'Event');
    assert.equal(done.apiVersion, 'audit.k8s.io/v1');
    assert.equal(done.level, 'RequestResponse');
    assert.equal(done.verb, 'create');
    assert.equal(done.requestURI, '/api/v1/namespaces/team/configmaps');
    assert.equal(done.userAgent, 'audit-test/1.0');
    assert.deepEqual(done.sourceIPs, ['127.0.0.1']);
    assert.ok(done.user.groups?.includes('system:masters'));
    // the name comes from the body, as upstream completes the objectRef
    assert.deepEqual(done.objectRef, { resource: 'configmaps', namespace: 'team', name: 'cfg', apiVersion: 'v1' });
    assert.deepEqual(done.responseStatus, { metadata: {}, code: 201 });
    const sent = done.requestObject as { metadata: Record<string, unknown>; data: unknown };
    assert.equal(sent.metadata.uid, undefined);
    assert.deepEqual(sent.data, { a: '1' });
    const stored = done.responseObject as { metadata: Record<string, unknown> };
    assert.ok(stored.metadata.uid);
    assert.equal(stored.metadata.managedFields, undefined, 'omitManagedFields');
    assert.match(done.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.match(done.stageTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(done.annotations?.['authorization.k8s.io/decision'], 'allow');
  });

  it('keeps Secrets at Metadata: no bodies', async () => {
    const res = await srv.request('POST', '/api/v1/namespaces/team/secrets', { body: { metadata: { name: 's' }, stringData: { password: 'hunter2' } } });
    assert.equal(res.status, 201);
    const done = forRequest(res.headers['audit-id']).find((e) => e.stage === 'ResponseComplete')!;
    assert.equal(done.level, 'Metadata');
    assert.equal(done.requestObject, undefined);
    assert.equal(done.responseObject, undefined);
    assert.equal(done.objectRef?.name, 's');
    assert.doesNotMatch(JSON.stringify(events), /hunter2/);
  });

  it('logs a patch as its patch at Request level, without the response', async () => {
    await srv.request('POST', '/api/v1/namespaces/team/pods', { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
    const res = await srv.request('PATCH', '/api/v1/namespaces/team/pods/p', { body: { metadata: { labels: { x: 'y' } } }, contentType: 'application/merge-patch+json' });
    assert.equal(res.status, 200);
    const done = forRequest(res.headers['audit-id']).find((e) => e.stage === 'ResponseComplete')!;
    assert.equal(done.level, 'Request');
    assert.deepEqual(done.requestObject, { metadata: { labels: { x: 'y' } } });
    assert.equal(done.responseObject, undefined);
  });

  it('records nothing for a user the policy silences', async () => {
    const quiet = await srv.clientCertificate('quiet');
    const res = await srv.request('GET', '/api/v1/namespaces/team/configmaps', { client: quiet });
    assert.equal(res.status, 200);
    assert.deepEqual(forRequest(res.headers['audit-id']), []);
    assert.ok(res.headers['audit-id'], 'the audit ID is still answered');
  });

  it('records a refusal with the authorizer decision and the Status', async () => {
    const eve = await srv.clientCertificate('eve', ['devs']);
    const res = await srv.request('GET', '/api/v1/namespaces/team/secrets/s', { client: eve });
    assert.equal(res.status, 403);
    const done = forRequest(res.headers['audit-id']).find((e) => e.stage === 'ResponseComplete')!;
    assert.deepEqual(done.user, { username: 'eve', groups: ['devs', 'system:authenticated'] });
    assert.equal(done.annotations?.['authorization.k8s.io/decision'], 'forbid');
    assert.equal(done.annotations?.['authorization.k8s.io/reason'], 'eve is not trusted');
    assert.equal(done.responseStatus?.code, 403);
    assert.equal(done.responseStatus?.status, 'Failure');
    assert.equal(done.responseStatus?.reason, 'Forbidden');
    assert.match(done.responseStatus?.message ?? '', /secrets "s" is forbidden: User "eve" cannot get resource "secrets"/);
  });

  it('records a request without credentials as one ResponseStarted event with the 401', async () => {
    const res = await srv.request('GET', '/api/v1/namespaces/team/pods', { client: null });
    assert.equal(res.status, 401);
    const got = forRequest(res.headers['audit-id']);
    assert.equal(got.length, 1);
    assert.equal(got[0].stage, 'ResponseStarted');
    assert.deepEqual(got[0].user, {});
    assert.deepEqual(got[0].responseStatus, { metadata: {}, message: 'Authentication failed, no credentials provided', code: 401 });
    const bearer = await srv.request('GET', '/api/v1/namespaces/team/pods', { client: null, headers: { Authorization: 'Bearer nope' } });
    assert.equal(forRequest(bearer.headers['audit-id'])[0]?.responseStatus?.message, 'Authentication failed, attempted: bearer');
  });

  it('records the impersonated user beside the requester, and matches rules on the requester', async () => {
    const res = await srv.request('GET', '/api/v1/namespaces/team/services', { headers: { 'Impersonate-User': 'quiet' } });
    assert.equal(res.status, 200);
    const done = forRequest(res.headers['audit-id']).find((e) => e.stage === 'ResponseComplete')!;
    assert.ok(done.user.groups?.includes('system:masters'));
    assert.deepEqual(done.impersonatedUser, { username: 'quiet', groups: ['system:authenticated'] });
  });

  it('records a watch at ResponseStarted and again when it ends', async () => {
    const res = await srv.request('GET', '/api/v1/namespaces/team/pods?watch=true&timeoutSeconds=1');
    assert.equal(res.status, 200);
    const got = forRequest(res.headers['audit-id']);
    assert.deepEqual(got.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    assert.equal(got[0].verb, 'watch');
    assert.deepEqual(got[1].responseStatus, { metadata: {}, code: 200 });
    assert.equal(got[2].responseObject, undefined);
  });

  it('uses the client Audit-ID, and the lowercase HTTP method as the verb of a non-resource request', async () => {
    const res = await srv.request('GET', '/version', { headers: { 'Audit-ID': 'my-id-1' } });
    assert.equal(res.headers['audit-id'], 'my-id-1');
    const got = forRequest('my-id-1');
    assert.equal(got.at(-1)?.verb, 'get');
    assert.equal(got.at(-1)?.objectRef, undefined);
    const health = await srv.request('GET', '/healthz');
    assert.deepEqual(forRequest(health.headers['audit-id']), []);
  });
});
