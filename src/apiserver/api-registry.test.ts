import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALL_VERBS, type ResourceInfo } from '../api/resource-info.js';
import { customResourceModels } from './apiextensions/custom-resource-models.js';
import { startInProcessServer, type InProcessServer, type Reply } from './in-process-server.test-util.js';
import { defaultStrategy } from './registry/default-strategy.js';
import { RegistryStore } from './registry/registry-store.js';

// The registry is live: a resource added while the server runs is routed,
// discovered (legacy and aggregated, whose ETag changes) and described in
// OpenAPI v2 and v3 (whose hashes change); once removed, all of that goes.

const GADGETS: ResourceInfo = {
  group: 'gadgets.skiff.dev',
  version: 'v1',
  kind: 'Gadget',
  listKind: 'GadgetList',
  resource: 'gadgets',
  singular: 'gadget',
  namespaced: true,
  shortNames: ['gd'],
  categories: [],
  subresources: ['status'],
  verbs: ALL_VERBS,
};
const GIZMOS: ResourceInfo = { ...GADGETS, kind: 'Gizmo', listKind: 'GizmoList', resource: 'gizmos', singular: 'gizmo', shortNames: [], subresources: [] };

const AGGREGATED = (v: string) => `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList,application/json`;
type Discovery = { apiVersion: string; items: { metadata: { name?: string }; versions: { version: string; resources: { resource: string; shortNames?: string[] }[] }[] }[] };
type V3Index = { paths: Record<string, { serverRelativeURL: string }> };

describe('the live ApiRegistry', () => {
  let api: InProcessServer;
  const aggregated = (v = 'v2', etag?: string): Promise<Reply> => api.request('GET', '/apis', { headers: { Accept: AGGREGATED(v), ...(etag ? { 'If-None-Match': etag } : {}) } });
  const v3Index = async () => (await api.request('GET', '/openapi/v3')).json() as unknown as V3Index;
  const v2 = async () => (await api.request('GET', '/openapi/v2')).json() as { paths: object; definitions: Record<string, unknown> };
  const v2Paths = async () => Object.keys((await v2()).paths);
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
  const store = (info: ResourceInfo) =>
    new RegistryStore({
      info,
      strategy: defaultStrategy(info),
      storage: api.storage,
      keyRoot: `/registry/${info.group}/${info.resource}/`,
      models: customResourceModels(info, { name: 'v1', served: true, storage: true, schema }),
    });
  const collection = '/apis/gadgets.skiff.dev/v1/namespaces/default/gadgets';

  before(async () => {
    api = await startInProcessServer();
  });
  after(() => api?.stop());

  it('discovery (both forms, with ETags), OpenAPI v2/v3 (with hashes) and routing follow a resource added and removed at run time', async () => {
    const first = await aggregated('v2');
    assert.equal(first.status, 200);
    assert.equal(first.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    assert.equal(first.headers.vary, 'Accept');
    const etag = first.headers.etag as string;
    assert.match(etag, /^"[0-9A-F]{128}"$/);
    assert.equal((await aggregated('v2', etag)).status, 304);
    const beta = await aggregated('v2beta1');
    assert.equal((beta.json() as unknown as Discovery).apiVersion, 'apidiscovery.k8s.io/v2beta1');
    assert.equal(beta.headers.etag, etag, 'one ETag for both versions of the same content (Vary: Accept tells them apart)');

    const index = await v3Index();
    const generation = api.server.apiRegistry.generation;
    assert.equal(index.paths['apis/gadgets.skiff.dev/v1'], undefined);
    assert.equal((await api.request('GET', collection)).status, 404);

    api.server.apiRegistry.add(store(GADGETS));
    assert.ok(api.server.apiRegistry.generation > generation);

    // discovery, both forms
    const stale = await aggregated('v2', etag);
    assert.equal(stale.status, 200, 'the old ETag no longer matches');
    assert.notEqual(stale.headers.etag, etag);
    const group = (stale.json() as unknown as Discovery).items.find((g) => g.metadata.name === 'gadgets.skiff.dev');
    assert.deepEqual(group?.versions.map((v) => v.resources.map((r) => [r.resource, r.shortNames])), [[['gadgets', ['gd']]]]);
    const betaGroup = ((await aggregated('v2beta1')).json() as unknown as Discovery).items.find((g) => g.metadata.name === 'gadgets.skiff.dev');
    assert.ok(betaGroup);
    const groups = (await api.request('GET', '/apis')).json() as { groups: { name: string }[] };
    assert.ok(groups.groups.some((g) => g.name === 'gadgets.skiff.dev'));
    const list = (await api.request('GET', '/apis/gadgets.skiff.dev/v1')).json() as { resources: { name: string }[] };
    assert.deepEqual(list.resources.map((r) => r.name), ['gadgets', 'gadgets/status']);

    // OpenAPI v2 and v3
    const swagger = await v2();
    assert.ok(Object.keys(swagger.paths).includes('/apis/gadgets.skiff.dev/v1/namespaces/{namespace}/gadgets/{name}'));
    assert.ok(swagger.definitions['dev.skiff.gadgets.v1.Gadget']);
    const added = await v3Index();
    const url = added.paths['apis/gadgets.skiff.dev/v1']?.serverRelativeURL;
    assert.match(url, /^\/openapi\/v3\/apis\/gadgets.skiff.dev\/v1\?hash=[0-9A-F]{128}$/);
    assert.equal(added.paths['apis/apps/v1'].serverRelativeURL, index.paths['apis/apps/v1'].serverRelativeURL, 'other group-versions keep their hash');
    const doc = await api.request('GET', url);
    assert.equal(doc.headers['cache-control'], 'public, immutable');
    type V3Doc = { paths: Record<string, { patch?: { requestBody: { content: object } } }>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    const v3 = doc.json() as unknown as V3Doc;
    assert.ok(v3.components.schemas['dev.skiff.gadgets.v1.Gadget'].properties?.spec);
    // a custom resource takes no strategic merge patch, which is how kubectl apply knows to send a merge patch
    const patch = v3.paths['/apis/gadgets.skiff.dev/v1/namespaces/{namespace}/gadgets/{name}'].patch;
    assert.deepEqual(Object.keys(patch?.requestBody.content ?? {}), ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);

    // routing
    const created = await api.request('POST', collection, { body: { apiVersion: 'gadgets.skiff.dev/v1', kind: 'Gadget', metadata: { name: 'g1' } } });
    assert.equal(created.status, 201, created.text);
    assert.equal((await api.request('GET', `${collection}/g1`)).status, 200);

    // a second resource in the same group-version: that document's hash changes; its old URL redirects to the new one
    api.server.apiRegistry.add(store(GIZMOS));
    const grown = (await v3Index()).paths['apis/gadgets.skiff.dev/v1'].serverRelativeURL;
    assert.notEqual(grown, url);
    const moved = await api.request('GET', url);
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.location, grown);

    // and away again
    assert.equal(api.server.apiRegistry.remove('gadgets.skiff.dev', 'v1', 'gizmos'), true);
    assert.equal(api.server.apiRegistry.remove('gadgets.skiff.dev', 'v1', 'gadgets'), true);
    assert.equal(api.server.apiRegistry.remove('gadgets.skiff.dev', 'v1', 'gadgets'), false);
    const gone = await aggregated('v2', stale.headers.etag as string);
    assert.equal(gone.status, 200);
    assert.equal(gone.headers.etag, etag, 'the same content has the same ETag again');
    assert.equal((gone.json() as unknown as Discovery).items.find((g) => g.metadata.name === 'gadgets.skiff.dev'), undefined);
    assert.equal((await api.request('GET', '/apis/gadgets.skiff.dev/v1')).status, 404);
    assert.equal((await api.request('GET', '/apis/gadgets.skiff.dev')).status, 404);
    assert.equal((await v3Index()).paths['apis/gadgets.skiff.dev/v1'], undefined);
    assert.equal((await api.request('GET', grown)).status, 404);
    assert.ok(!(await v2Paths()).some((p) => p.includes('gadgets')));
    const after = await api.request('GET', `${collection}/g1`);
    assert.equal(after.status, 404);
    assert.equal(after.json().reason, 'NotFound');
  });
});
