import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../api/object.js';
import { forbidden } from '../machinery/api-error.js';
import type { AdmissionAttributes, MutatingAdmission, Operation, ValidatingAdmission } from './admission/admission.js';
import { ADMISSION_PLUGINS } from './admission/plugins.js';
import type { Authenticator } from './authentication/authenticator.js';
import { X509Authenticator } from './authentication/x509.js';
import { AnonymousAuthenticator } from './authentication/anonymous.js';
import { PUBLIC_INFO_PATHS } from './authorization/public-info.js';
import type { Authorizer } from './authorization/authorizer.js';
import { DEFAULT_AUTHORIZERS } from './request-pipeline.js';
import { startInProcessServer, type InProcessServer } from './in-process-server.test-util.js';

/** Everything the stages saw, in order. */
const seen: string[] = [];
/** What the validating plugin found in storage and in the object. */
const checks: { op: string; restartPolicy?: unknown; storedBefore?: boolean }[] = [];
let refuse: ((a: AdmissionAttributes) => boolean) | undefined;
let srv: InProcessServer;

const recordingAuthenticator: Authenticator = {
  name: 'recording',
  async authenticate(req, path) {
    const result = await new X509Authenticator().authenticate(req);
    if (result && path.startsWith('/api')) seen.push(`authenticate ${result.user.name}`);
    return result;
  },
};

const recordingAuthorizer: Authorizer = {
  name: 'recording',
  async authorize(a) {
    if (a.resourceRequest) seen.push(`authorize ${a.user.name} ${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''}${a.verb === 'impersonate' ? ` ${a.name}` : ''}`);
    if (a.user.name === 'bob' && a.verb === 'impersonate') return { decision: 'Deny', reason: '' };
    if (a.user.name === 'mallory') return { decision: 'Deny', reason: 'mallory is banned' };
    return { decision: 'NoOpinion', reason: '' };
  },
};

function describeAttrs(a: AdmissionAttributes): string {
  const sub = a.subresource ? `/${a.subresource}` : '';
  return `${a.operation} ${a.resource.resource}${sub} ${a.kind.kind} ${a.name} by ${a.user.name}${a.dryRun ? ' dry-run' : ''}`;
}

class Recorder implements MutatingAdmission, ValidatingAdmission {
  readonly name = 'Recorder';
  handles(_op: Operation): boolean {
    return true;
  }
  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.namespace === 'kube-system' || a.resource.resource === 'events') return;
    seen.push(`admit ${describeAttrs(a)}`);
    if (a.object && a.resource.resource === 'pods' && !a.subresource) {
      const spec = a.object.spec as { restartPolicy?: string } | undefined;
      checks.push({ op: `admit ${a.operation}`, restartPolicy: spec?.restartPolicy });
    }
  }
  async validate(a: AdmissionAttributes): Promise<void> {
    if (a.namespace === 'kube-system' || a.resource.resource === 'events') return;
    seen.push(`validate ${describeAttrs(a)}`);
    if (a.object && a.resource.resource === 'pods' && !a.subresource && a.operation === 'CREATE') {
      const stored = await srv.storage.get(`/registry/pods/${a.namespace}/${a.object.metadata?.name ?? ''}`);
      checks.push({ op: 'validate CREATE', restartPolicy: (a.object.spec as { restartPolicy?: string }).restartPolicy, storedBefore: Boolean(stored.kv) });
    }
    if (refuse?.(a)) throw forbidden(`refused by the test`);
  }
}

const pod = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });

before(async () => {
  srv = await startInProcessServer({
    pipeline: {
      authenticators: () => [recordingAuthenticator, new AnonymousAuthenticator(PUBLIC_INFO_PATHS)],
      authorizers: () => [recordingAuthorizer, ...DEFAULT_AUTHORIZERS()],
      admission: [...ADMISSION_PLUGINS, () => new Recorder()],
    },
  });
});
after(() => srv.stop());

async function expectStatus(p: Promise<{ status: number; text: string }>, status: number): Promise<string> {
  const r = await p;
  assert.equal(r.status, status, r.text);
  return r.text;
}

describe('the request pipeline', () => {
  it('runs authentication, authorization, mutating admission, defaulting and validation, validating admission, storage in that order', async () => {
    seen.length = 0;
    checks.length = 0;
    await expectStatus(srv.request('POST', '/api/v1/namespaces/default/pods', { body: pod('ordered') }), 201);
    assert.deepEqual(seen, [
      'authenticate skiff-admin',
      'authorize skiff-admin create pods',
      'admit CREATE pods Pod ordered by skiff-admin',
      'validate CREATE pods Pod ordered by skiff-admin',
    ]);
    // mutating admission sees the object before defaulting, validating admission after it and before it is stored
    assert.deepEqual(checks, [
      { op: 'admit CREATE', restartPolicy: undefined },
      { op: 'validate CREATE', restartPolicy: 'Always', storedBefore: false },
    ]);
  });

  it('an invalid object never reaches validating admission; a refused one never reaches storage', async () => {
    seen.length = 0;
    const bad = pod('bad');
    (bad.spec as { containers: unknown[] }).containers = [];
    await expectStatus(srv.request('POST', '/api/v1/namespaces/default/pods', { body: bad }), 422);
    assert.deepEqual(seen.filter((s) => s.startsWith('validate')), []);
    refuse = (a) => a.name === 'refused';
    try {
      await expectStatus(srv.request('POST', '/api/v1/namespaces/default/pods', { body: pod('refused') }), 403);
      await expectStatus(srv.request('PATCH', '/api/v1/namespaces/default/pods/refused?fieldManager=t', { body: pod('refused'), contentType: 'application/apply-patch+yaml' }), 403);
      await expectStatus(srv.request('GET', '/api/v1/namespaces/default/pods/refused'), 404);
    } finally {
      refuse = undefined;
    }
  });

  it('every write verb and subresource is admitted as the operation it is', async () => {
    const ns = '/api/v1/namespaces/default';
    const cases: [string, () => Promise<unknown>, string[]][] = [
      ['update', () => srv.request('GET', `${ns}/pods/ordered`).then((r) => srv.request('PUT', `${ns}/pods/ordered`, { body: { ...r.json(), metadata: { ...(r.json().metadata as object), labels: { a: 'b' } } } })), ['UPDATE pods Pod ordered']],
      ['merge patch', () => srv.request('PATCH', `${ns}/pods/ordered`, { body: { metadata: { labels: { m: '1' } } }, contentType: 'application/merge-patch+json' }), ['UPDATE pods Pod ordered']],
      ['json patch', () => srv.request('PATCH', `${ns}/pods/ordered`, { body: [{ op: 'add', path: '/metadata/labels/j', value: '1' }], contentType: 'application/json-patch+json' }), ['UPDATE pods Pod ordered']],
      ['strategic patch', () => srv.request('PATCH', `${ns}/pods/ordered`, { body: { metadata: { labels: { s: '1' } } }, contentType: 'application/strategic-merge-patch+json' }), ['UPDATE pods Pod ordered']],
      ['apply (create)', () => srv.request('PATCH', `${ns}/pods/applied?fieldManager=t`, { body: pod('applied'), contentType: 'application/apply-patch+yaml' }), ['CREATE pods Pod applied']],
      ['apply (update)', () => srv.request('PATCH', `${ns}/pods/applied?fieldManager=t`, { body: { ...pod('applied'), metadata: { name: 'applied', labels: { x: 'y' } } }, contentType: 'application/apply-patch+yaml' }), ['UPDATE pods Pod applied']],
      ['status patch', () => srv.request('PATCH', `${ns}/pods/ordered/status`, { body: { status: { message: 'hi' } }, contentType: 'application/merge-patch+json' }), ['UPDATE pods/status Pod ordered']],
      ['binding', () => srv.request('POST', `${ns}/pods/ordered/binding`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'ordered' }, target: { kind: 'Node', name: 'n1' } } }), ['CREATE pods/binding Binding ordered']],
      ['dry-run create', () => srv.request('POST', `${ns}/configmaps?dryRun=All`, { body: { metadata: { name: 'dry' } } }), ['CREATE configmaps ConfigMap dry by skiff-admin dry-run']],
      ['deployment', () => srv.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: { metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } } }), ['CREATE deployments Deployment d']],
      ['scale', () => srv.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/d/scale', { body: { spec: { replicas: 3 } }, contentType: 'application/merge-patch+json' }), ['UPDATE deployments/scale Scale d']],
      ['delete', () => srv.request('DELETE', `${ns}/pods/applied`), ['DELETE pods Pod applied']],
      ['configmaps', () => Promise.all(['c1', 'c2'].map((name) => srv.request('POST', `${ns}/configmaps`, { body: { metadata: { name, labels: { set: 'x' } } } }))), ['CREATE configmaps ConfigMap c1', 'CREATE configmaps ConfigMap c2']],
      ['deletecollection', () => srv.request('DELETE', `${ns}/configmaps?labelSelector=set%3Dx`), ['DELETE configmaps ConfigMap c1', 'DELETE configmaps ConfigMap c2']],
      ['namespace finalize', () => srv.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'fin' } } }).then(() => srv.request('PUT', '/api/v1/namespaces/fin/finalize', { body: { metadata: { name: 'fin' }, spec: { finalizers: [] } } })), ['CREATE namespaces Namespace fin', 'UPDATE namespaces/finalize Namespace fin']],
    ];
    for (const [what, run, ops] of cases) {
      seen.length = 0;
      const result = (await run()) as { status: number; text: string } | { status: number; text: string }[];
      for (const r of [result].flat()) assert.ok(r.status < 300, `${what}: ${r.status} ${r.text}`);
      const admitted = seen.filter((s) => s.startsWith('admit ')).map((s) => s.slice('admit '.length).replace(/ by skiff-admin$/, ''));
      const validated = seen.filter((s) => s.startsWith('validate ')).map((s) => s.slice('validate '.length).replace(/ by skiff-admin$/, ''));
      const expected = ops.map((o) => o.replace(/ by skiff-admin$/, ''));
      assert.deepEqual(admitted.sort(), [...expected].sort(), `${what}: mutating admission`);
      assert.deepEqual(validated.sort(), [...expected].sort(), `${what}: validating admission`);
    }
  });

  it('server-side apply gets spec.priority from the PriorityClass, as create does', async () => {
    await expectStatus(srv.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { body: { metadata: { name: 'high' }, value: 1000 } }), 201);
    const withClass = (name: string) => ({ ...pod(name), spec: { ...(pod(name).spec as object), priorityClassName: 'high' } });
    const created = JSON.parse(await expectStatus(srv.request('POST', '/api/v1/namespaces/default/pods', { body: withClass('created') }), 201)) as KubeObject;
    const applied = JSON.parse(
      await expectStatus(srv.request('PATCH', '/api/v1/namespaces/default/pods/applied-p?fieldManager=t', { body: withClass('applied-p'), contentType: 'application/apply-patch+yaml' }), 201),
    ) as KubeObject;
    assert.equal((created.spec as { priority?: number }).priority, 1000);
    assert.equal((applied.spec as { priority?: number }).priority, 1000);
    const missing = { ...pod('nope'), spec: { ...(pod('nope').spec as object), priorityClassName: 'missing' } };
    const text = await expectStatus(srv.request('PATCH', '/api/v1/namespaces/default/pods/nope?fieldManager=t', { body: missing, contentType: 'application/apply-patch+yaml' }), 403);
    assert.match(text, /pods \\"nope\\" is forbidden: no PriorityClass with name missing was found/);
  });

  it('NamespaceLifecycle: no new objects in a missing namespace (create and apply); system namespaces cannot be deleted', async () => {
    await expectStatus(srv.request('POST', '/api/v1/namespaces/nowhere/configmaps', { body: { metadata: { name: 'x' } } }), 404);
    await expectStatus(srv.request('PATCH', '/api/v1/namespaces/nowhere/configmaps/x?fieldManager=t', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, contentType: 'application/apply-patch+yaml' }), 404);
    const text = await expectStatus(srv.request('DELETE', '/api/v1/namespaces/kube-system'), 403);
    assert.match(text, /namespaces \\"kube-system\\" is forbidden: this namespace may not be deleted/);
  });

  it('authorization: a denial is a 403 worded as upstream and changes nothing', async () => {
    const mallory = await srv.clientCertificate('mallory', ['dev']);
    const r = await srv.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'm' } }, client: mallory });
    assert.equal(r.status, 403);
    assert.equal(r.json().message, 'configmaps is forbidden: User "mallory" cannot create resource "configmaps" in API group "" in the namespace "default": mallory is banned');
    await expectStatus(srv.request('GET', '/api/v1/namespaces/default/configmaps/m'), 404);
    const nonResource = await srv.request('GET', '/metrics', { client: mallory });
    assert.equal(nonResource.json().message, 'forbidden: User "mallory" cannot get path "/metrics": mallory is banned');
  });

  it('authentication: no certificate is a 401 except on the public paths', async () => {
    assert.equal((await srv.request('GET', '/api/v1/pods', { client: null })).status, 401);
    assert.equal((await srv.request('GET', '/healthz', { client: null })).status, 200);
    assert.equal((await srv.request('GET', '/version', { client: null })).status, 200);
    assert.equal((await srv.request('GET', '/metrics', { client: null })).status, 401);
  });

  it('impersonation: the impersonated user is the one authorization and admission see; refused impersonation is a 403', async () => {
    seen.length = 0;
    await expectStatus(
      srv.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'as-jane' } }, headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': ['dev', 'ops'] } }),
      201,
    );
    assert.deepEqual(seen, [
      'authenticate skiff-admin',
      'authorize skiff-admin impersonate users jane',
      'authorize skiff-admin impersonate groups dev',
      'authorize skiff-admin impersonate groups ops',
      'authorize jane create configmaps',
      'admit CREATE configmaps ConfigMap as-jane by jane',
      'validate CREATE configmaps ConfigMap as-jane by jane',
    ]);
    const bob = await srv.clientCertificate('bob');
    const bobAsAlice = await srv.request('GET', '/api/v1/namespaces/default/configmaps', { client: bob, headers: { 'Impersonate-User': 'alice' } });
    assert.equal(bobAsAlice.status, 403);
    assert.equal(bobAsAlice.json().message, 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');
  });
});
