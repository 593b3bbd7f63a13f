import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { RESOURCES } from '../resources.js';
import { builtinDefinitions, definitionNameForKind, withPatchMetadata } from './definitions.js';
import { generateDefinitions, renderDefinitions } from './definitions-generator.js';
import { refName, type OpenApiSchema } from './openapi-schema.js';

const committed = readFileSync(new URL('./generated/definitions.json', import.meta.url), 'utf8');
const generated = generateDefinitions();

describe('definitions generated from kubernetes-types', () => {
  it('matches the committed file (run `npx tsx scripts/generate-schemas.ts` when this fails)', () => {
    assert.equal(renderDefinitions(generated), committed);
  });

  it('has a definition with its group-version-kind for every served kind and list kind', () => {
    for (const r of RESOURCES) {
      // create-only reviews have no list kind upstream
      const kinds = r.verbs.includes('list') ? [r.kind, r.listKind] : [r.kind];
      for (const kind of kinds) assert.ok(definitionNameForKind(r.group, r.version, kind), `${r.group}/${r.version} ${kind}`);
    }
    assert.equal(definitionNameForKind('apps', 'v1', 'Deployment'), 'io.k8s.api.apps.v1.Deployment');
    assert.equal(definitionNameForKind('autoscaling', 'v1', 'Scale'), 'io.k8s.api.autoscaling.v1.Scale');
    assert.equal(definitionNameForKind('', 'v1', 'Binding'), 'io.k8s.api.core.v1.Binding');
    assert.ok(generated['io.k8s.api.rbac.v1.ClusterRole']);
    assert.ok(generated['io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions']);
    assert.ok(generated['io.k8s.apimachinery.pkg.apis.meta.v1.Status']);
  });

  it('names and shapes the special types as upstream does', () => {
    assert.deepEqual(strip(generated['io.k8s.apimachinery.pkg.api.resource.Quantity']), { type: 'string' });
    assert.deepEqual(strip(generated['io.k8s.apimachinery.pkg.util.intstr.IntOrString']), { type: 'string', format: 'int-or-string' });
    assert.deepEqual(strip(generated['io.k8s.apimachinery.pkg.apis.meta.v1.Time']), { type: 'string', format: 'date-time' });
    assert.deepEqual(strip(generated['io.k8s.apimachinery.pkg.runtime.RawExtension']), { type: 'object' });
    const rolling = generated['io.k8s.api.apps.v1.RollingUpdateDeployment'].properties!;
    assert.equal(rolling.maxSurge.$ref, '#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString');
    assert.match(rolling.maxSurge.description!, /maximum number of pods that can be scheduled/);
  });

  it('records required fields, maps, arrays, integers and descriptions', () => {
    const container = generated['io.k8s.api.core.v1.Container'];
    assert.deepEqual(container.required, ['name']);
    assert.equal(container.properties!.ports.type, 'array');
    assert.equal(container.properties!.ports.items!.$ref, '#/definitions/io.k8s.api.core.v1.ContainerPort');
    const meta = generated['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties!;
    assert.deepEqual(meta.labels.additionalProperties, { type: 'string' });
    assert.equal(meta.generation.type, 'integer');
    assert.equal(meta.generation.format, 'int64');
    assert.match(generated['io.k8s.api.core.v1.Pod'].description!, /^Pod is a collection of containers/);
  });

  it('has no dangling references', () => {
    const visit = (s: OpenApiSchema, where: string) => {
      if (s.$ref) assert.ok(generated[refName(s.$ref)], `${where} -> ${s.$ref}`);
      if (s.items) visit(s.items, where);
      if (typeof s.additionalProperties === 'object') visit(s.additionalProperties, where);
      for (const [k, p] of Object.entries(s.properties ?? {})) visit(p, `${where}.${k}`);
    };
    for (const [name, s] of Object.entries(generated)) visit(s, name);
  });

  it('lays the patch metadata table over the committed file', () => {
    const spec = builtinDefinitions()['io.k8s.api.core.v1.PodSpec'].properties!;
    assert.equal(spec.containers['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(spec.containers['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(spec.containers['x-kubernetes-list-type'], 'map');
    assert.deepEqual(spec.containers['x-kubernetes-list-map-keys'], ['name']);
    assert.equal(builtinDefinitions()['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']['x-kubernetes-map-type'], 'atomic');
    const custom = withPatchMetadata(generated, { 'apps/v1.DeploymentSpec': { selector: { mapType: 'atomic' } } });
    assert.equal(custom['io.k8s.api.apps.v1.DeploymentSpec'].properties!.selector['x-kubernetes-map-type'], 'atomic');
    assert.equal(generated['io.k8s.api.apps.v1.DeploymentSpec'].properties!.selector['x-kubernetes-map-type'], undefined, 'input not mutated');
  });
});

function strip(s: OpenApiSchema): OpenApiSchema {
  const { description: _d, ...rest } = s;
  return rest;
}
