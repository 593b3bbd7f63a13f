import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { RESOURCES } from '../resources.js';
import { moduleFile } from './definitions-generator.js';
import { ATOMIC_STRUCT_TYPES, fieldPatchMeta, fieldTypeName, PATCH_METADATA, resolveTypeAtPath, schemaTypeName, TYPE_GRAPH } from './patch-metadata.js';

/** The field names of an interface in kubernetes-types, read from its declaration file. */
function declaredFields(typeName: string): Set<string> | undefined {
  const dot = typeName.lastIndexOf('.');
  const source = readFileSync(moduleFile(typeName.slice(0, dot)), 'utf8');
  const start = source.indexOf(`export interface ${typeName.slice(dot + 1)} {`);
  if (start < 0) return undefined;
  const body = source.slice(start, source.indexOf('\n}', start));
  return new Set([...body.matchAll(/^ {4}(?:readonly )?(\w+)\??:/gm)].map((m) => m[1]));
}

describe('patch metadata table', () => {
  it('names only types and fields that exist in kubernetes-types', () => {
    for (const [typeName, fields] of Object.entries(PATCH_METADATA)) {
      const declared = declaredFields(typeName);
      assert.ok(declared, `unknown type ${typeName}`);
      for (const field of Object.keys(fields)) assert.ok(declared.has(field), `${typeName} has no field ${field}`);
    }
    for (const typeName of ATOMIC_STRUCT_TYPES) assert.ok(declaredFields(typeName), `unknown type ${typeName}`);
  });

  it('uses merge keys and list map keys that are fields of the element type', () => {
    for (const [typeName, fields] of Object.entries(PATCH_METADATA)) {
      for (const [field, meta] of Object.entries(fields)) {
        const keys = [...(meta.patchMergeKey ? [meta.patchMergeKey] : []), ...(meta.listMapKeys ?? [])];
        if (keys.length === 0) continue;
        const element = fieldTypeName(typeName, field);
        assert.ok(element, `${typeName}.${field} has keys but holds no object type`);
        const declared = declaredFields(element)!;
        for (const key of keys) assert.ok(declared.has(key), `${element} has no key field ${key} (${typeName}.${field})`);
        if (meta.listType === 'map') assert.ok(meta.listMapKeys?.length, `${typeName}.${field} is a map list without keys`);
      }
    }
  });

  it('records upstream facts for the common fields', () => {
    assert.deepEqual(fieldPatchMeta('core/v1.PodSpec', 'containers'), { patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] });
    assert.deepEqual(fieldPatchMeta('core/v1.Container', 'ports'), {
      patchStrategy: 'merge',
      patchMergeKey: 'containerPort',
      listType: 'map',
      listMapKeys: ['containerPort', 'protocol'],
    });
    assert.equal(fieldPatchMeta('core/v1.PodSpec', 'volumes')?.patchStrategy, 'merge,retainKeys');
    assert.deepEqual(fieldPatchMeta('meta/v1.ObjectMeta', 'finalizers'), { patchStrategy: 'merge', listType: 'set' });
    assert.equal(fieldPatchMeta('meta/v1.ObjectMeta', 'ownerReferences')?.patchMergeKey, 'uid');
    assert.deepEqual(fieldPatchMeta('core/v1.ServiceSpec', 'ports')?.listMapKeys, ['port', 'protocol']);
    assert.deepEqual(fieldPatchMeta('core/v1.PodSpec', 'tolerations'), { listType: 'atomic' });
    assert.deepEqual(fieldPatchMeta('apps/v1.DeploymentSpec', 'strategy'), { patchStrategy: 'retainKeys' });
    assert.equal(fieldPatchMeta('core/v1.NodeStatus', 'addresses')?.patchMergeKey, 'type');
    assert.equal(fieldPatchMeta('core/v1.PodSpec', 'hostname'), undefined);
    assert.equal(fieldPatchMeta('core/v1.PodSpec', '__proto__'), undefined);
  });
});

describe('type graph', () => {
  it('has every served kind as a root', () => {
    for (const r of RESOURCES) assert.ok(schemaTypeName(r.group, r.version, r.kind), `${r.group}/${r.version} ${r.kind} missing`);
    assert.equal(schemaTypeName('example.com', 'v1', 'Widget'), undefined);
  });

  it('resolves the type at a path below a kind', () => {
    const deployment = { group: 'apps', version: 'v1', kind: 'Deployment' };
    assert.equal(resolveTypeAtPath(deployment, []), 'apps/v1.Deployment');
    assert.equal(resolveTypeAtPath(deployment, ['spec', 'template', 'spec']), 'core/v1.PodSpec');
    assert.equal(resolveTypeAtPath(deployment, ['spec', 'template', 'spec', 'containers', 'ports']), 'core/v1.ContainerPort');
    assert.equal(resolveTypeAtPath(deployment, ['metadata', 'ownerReferences']), 'meta/v1.OwnerReference');
    assert.equal(resolveTypeAtPath({ group: 'batch', version: 'v1', kind: 'CronJob' }, ['spec', 'jobTemplate', 'spec', 'template', 'spec']), 'core/v1.PodSpec');
    assert.equal(resolveTypeAtPath(deployment, ['spec', 'replicas']), undefined);
    assert.equal(resolveTypeAtPath(deployment, ['spec', 'nope', 'x']), undefined);
  });

  it('only points at types it describes', () => {
    for (const [typeName, edges] of Object.entries(TYPE_GRAPH)) {
      for (const [field, child] of Object.entries(edges)) {
        assert.ok(Object.hasOwn(TYPE_GRAPH, child.replace(/^\{\}/, '')), `${typeName}.${field} → ${child} is not in the graph`);
      }
    }
  });
});
