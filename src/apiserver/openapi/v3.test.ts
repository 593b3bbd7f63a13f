import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RESOURCES } from '../../api/resources.js';
import { openApiDocument, openApiHash, openApiIndex } from './v3.js';

const BUILTINS = RESOURCES.map((info) => ({ info }));
const hashOf = (group: string, version: string) => openApiHash(JSON.stringify(openApiDocument(BUILTINS, group, version)));

type Doc = { paths: Record<string, Record<string, Record<string, unknown>>>; components: { schemas: Record<string, Record<string, unknown>> } };

function refsOf(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsOf(v, into));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') into.push(v);
      else refsOf(v, into);
    }
  }
  return into;
}

describe('OpenAPI v3 documents', () => {
  const apps = openApiDocument(BUILTINS, 'apps', 'v1') as unknown as Doc;

  it('is not built for group-versions not served', () => {
    assert.equal(openApiDocument(BUILTINS, 'apps', 'v9'), undefined);
  });

  it('has every operation with its action, gvk and write parameters', () => {
    const item = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
    assert.deepEqual(Object.keys(item).sort(), ['delete', 'get', 'parameters', 'patch', 'put']);
    const patch = item.patch as { parameters: { name: string }[]; 'x-kubernetes-action': string; 'x-kubernetes-group-version-kind': unknown; requestBody: { content: Record<string, unknown> } };
    assert.equal(patch['x-kubernetes-action'], 'patch');
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
    assert.deepEqual(patch.parameters.map((p) => p.name), ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    assert.ok(patch.requestBody.content['application/strategic-merge-patch+json']);
    const scale = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'].patch;
    assert.deepEqual(scale['x-kubernetes-group-version-kind'], { group: 'autoscaling', version: 'v1', kind: 'Scale' });
  });

  it('holds the kinds and everything they reference, with resolvable component refs', () => {
    const schemas = apps.components.schemas;
    for (const name of ['io.k8s.api.apps.v1.Deployment', 'io.k8s.api.apps.v1.DeploymentList', 'io.k8s.api.core.v1.PodSpec', 'io.k8s.api.autoscaling.v1.Scale', 'io.k8s.apimachinery.pkg.apis.meta.v1.Status']) {
      assert.ok(schemas[name], name);
    }
    for (const ref of refsOf(apps)) {
      assert.match(ref, /^#\/components\/schemas\//);
      assert.ok(schemas[ref.slice('#/components/schemas/'.length)], ref);
    }
  });

  it('spells references with siblings as allOf and multi-type values as oneOf, as upstream does', () => {
    const schemas = apps.components.schemas;
    const spec = (schemas['io.k8s.api.apps.v1.Deployment'].properties as Record<string, Record<string, unknown>>).spec;
    assert.deepEqual(spec.allOf, [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }]);
    assert.equal(typeof spec.description, 'string');
    const intOrString = schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString'];
    assert.equal(intOrString.type, undefined);
    assert.deepEqual(intOrString.oneOf, [{ type: 'integer' }, { type: 'string' }]);
    assert.equal(intOrString.format, 'int-or-string');
  });

  it('indexes every served group-version with a URL carrying its content hash', () => {
    const index = openApiIndex(BUILTINS, hashOf) as { paths: Record<string, { serverRelativeURL: string }> };
    assert.equal(index.paths['apis/apps/v1'].serverRelativeURL, `/openapi/v3/apis/apps/v1?hash=${hashOf('apps', 'v1')}`);
    assert.match(index.paths['api/v1'].serverRelativeURL, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
  });
});
