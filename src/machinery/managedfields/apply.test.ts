import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../api/object.js';
import { ApiError } from '../api-error.js';
import { apply, type ApplyOptions } from './apply.js';
import { conflictsToApiError } from './apply-conflict.js';
import { listSchemaForKind } from './builtin-list-schema.js';
import { LAST_APPLIED_ANNOTATION } from './last-applied.js';
import { updateManagedFields } from './update-managed-fields.js';

const schema = listSchemaForKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
const T0 = new Date('2025-01-01T00:00:00Z');
const T1 = new Date('2025-01-01T00:05:00Z');

type Containers = { name: string; image?: string; env?: { name: string; value: string }[] }[];
function config(replicas: number | undefined, containers: Containers, labels: Record<string, string> = { app: 'web' }): KubeObject {
  const spec: Record<string, unknown> = { template: { spec: { containers } } };
  if (replicas !== undefined) spec.replicas = replicas;
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels }, spec };
}

function run(o: Partial<ApplyOptions> & Pick<ApplyOptions, 'applied' | 'manager'>) {
  return apply({ force: false, apiVersion: 'apps/v1', time: T0, schema, ...o });
}

function ok(r: ReturnType<typeof apply>): KubeObject {
  if (r.conflicts) assert.fail(`unexpected conflicts: ${conflictsToApiError(r.conflicts).message}`);
  return r.object;
}

const spec = (o: KubeObject) => o.spec as { replicas?: number; template: { spec: { containers: Containers } } };

describe('apply', () => {
  it('creates the object from the configuration and owns exactly its fields', () => {
    const r = run({ applied: config(2, [{ name: 'web', image: 'nginx' }]), manager: 'kubectl' });
    const obj = ok(r);
    assert.equal(spec(obj).replicas, 2);
    assert.deepEqual(obj.metadata?.managedFields, [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2025-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
        },
      },
    ]);
  });

  it('reports a conflict with another manager, in upstream words, and force takes the field over', () => {
    const first = ok(run({ applied: config(2, [{ name: 'web', image: 'nginx' }]), manager: 'kubectl' }));
    const r = run({ current: first, applied: config(3, [{ name: 'web', image: 'nginx' }]), manager: 'other', time: T1 });
    assert.ok(r.conflicts);
    const err = conflictsToApiError(r.conflicts);
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    assert.deepEqual(err.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.replicas' }]);

    const forced = ok(run({ current: first, applied: config(3, [{ name: 'web', image: 'nginx' }]), manager: 'other', force: true, time: T1 }));
    assert.equal(spec(forced).replicas, 3);
    const [kubectl, other] = forced.metadata!.managedFields!;
    assert.equal(kubectl.manager, 'kubectl');
    assert.ok(!JSON.stringify(kubectl.fieldsV1).includes('f:replicas'), 'the forced field leaves its old owner');
    assert.equal(kubectl.time, '2025-01-01T00:00:00Z');
    assert.equal(other.manager, 'other');
    assert.ok(JSON.stringify(other.fieldsV1).includes('f:replicas'));
    // Same values are shared, not conflicts: both still own the image.
    assert.ok(JSON.stringify(kubectl.fieldsV1).includes('f:image') && JSON.stringify(other.fieldsV1).includes('f:image'));
  });

  it('lists several conflicts grouped by manager, Update managers with their version', () => {
    const created = config(2, [{ name: 'web', image: 'nginx' }]);
    created.metadata!.managedFields = updateManagedFields({ new: created, manager: 'kubectl-create', apiVersion: 'apps/v1', time: T0, schema });
    const r = run({ current: created, applied: config(4, [{ name: 'web', image: 'httpd' }]), manager: 'ci' });
    assert.ok(r.conflicts);
    assert.equal(
      conflictsToApiError(r.conflicts).message,
      'Apply failed with 2 conflicts: conflicts with "kubectl-create" using apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name="web"].image',
    );
  });

  it('removes fields the manager stopped applying unless someone else owns them', () => {
    const first = ok(run({ applied: config(2, [{ name: 'web', image: 'nginx' }, { name: 'side', image: 'busybox' }], { app: 'web', tier: 'a' }), manager: 'kubectl' }));
    // Another manager shares the tier label.
    const shared = ok(run({ current: first, applied: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { tier: 'a' } } }, manager: 'labeler' }));
    const second = ok(run({ current: shared, applied: config(undefined, [{ name: 'web', image: 'nginx' }], {}), manager: 'kubectl', time: T1 }));
    assert.deepEqual(second.metadata?.labels, { tier: 'a' });
    assert.equal(spec(second).replicas, undefined);
    assert.deepEqual(spec(second).template.spec.containers.map((c) => c.name), ['web']);
  });

  it('merges map lists by key, keeping items other managers added in place', () => {
    const first = ok(run({ applied: config(1, [{ name: 'a', image: 'x' }, { name: 'c', image: 'x' }]), manager: 'kubectl' }));
    const withB = structuredClone(first);
    spec(withB).template.spec.containers.splice(1, 0, { name: 'b', image: 'y' });
    withB.metadata!.managedFields = updateManagedFields({ old: first, new: withB, manager: 'injector', apiVersion: 'apps/v1', time: T0, schema });
    const next = ok(run({ current: withB, applied: config(1, [{ name: 'a', image: 'x', env: [{ name: 'E', value: '1' }] }, { name: 'c', image: 'x' }, { name: 'd', image: 'z' }]), manager: 'kubectl' }));
    assert.deepEqual(spec(next).template.spec.containers.map((c) => c.name), ['a', 'b', 'c', 'd']);
    assert.deepEqual(spec(next).template.spec.containers[0].env, [{ name: 'E', value: '1' }]);
  });

  it('gives pre-existing fields to before-first-apply on an object never tracked', () => {
    const legacy = config(2, [{ name: 'web', image: 'nginx' }]);
    const r = run({ current: legacy, applied: config(5, [{ name: 'web', image: 'nginx' }]), manager: 'ci' });
    assert.ok(r.conflicts);
    assert.equal(r.conflicts[0].owner.manager, 'before-first-apply');
  });

  it('lets kubectl take over fields that still match the last-applied annotation', () => {
    const csa = config(2, [{ name: 'web', image: 'nginx' }]);
    csa.metadata!.annotations = { [LAST_APPLIED_ANNOTATION]: JSON.stringify(config(2, [{ name: 'web', image: 'nginx' }])) };
    csa.metadata!.managedFields = updateManagedFields({ new: csa, manager: 'kubectl-client-side-apply', apiVersion: 'apps/v1', time: T0, schema });
    const obj = ok(run({ current: csa, applied: config(3, [{ name: 'web', image: 'nginx' }]), manager: 'kubectl' }));
    assert.equal(spec(obj).replicas, 3);
    assert.equal(JSON.parse(obj.metadata!.annotations![LAST_APPLIED_ANNOTATION]).spec.replicas, 3, 'the annotation follows what kubectl applied');
    // Another manager gets no such pass.
    assert.ok(run({ current: csa, applied: config(3, [{ name: 'web', image: 'nginx' }]), manager: 'other' }).conflicts);
    // Nor does kubectl for a field that drifted from the annotation.
    const drifted = structuredClone(csa);
    spec(drifted).replicas = 7;
    assert.ok(run({ current: drifted, applied: config(3, [{ name: 'web', image: 'nginx' }]), manager: 'kubectl' }).conflicts);
  });

  it('rejects configurations upstream rejects', () => {
    const withMF = config(1, []);
    withMF.metadata!.managedFields = [];
    assert.throws(() => run({ applied: withMF, manager: 'kubectl' }), (e) => ApiError.is(e, 'BadRequest') && e.message === 'metadata.managedFields must be nil');
    const wrongVersion = { ...config(1, []), apiVersion: 'apps/v1beta1' };
    assert.throws(
      () => run({ applied: wrongVersion, manager: 'kubectl' }),
      (e) => ApiError.is(e, 'BadRequest') && e.message === 'Incorrect version specified in apply patch. Specified patch version: apps/v1beta1, expected: apps/v1',
    );
  });
});
