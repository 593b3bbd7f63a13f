import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../api/object.js';
import { listSchemaForKind } from './builtin-list-schema.js';
import { updateManagedFields } from './update-managed-fields.js';

const schema = listSchemaForKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
const T0 = new Date('2025-01-01T00:00:00.750Z');
const T1 = new Date('2025-01-01T00:01:00Z');

function deployment(replicas: number, image = 'nginx', extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '5', generation: 1, labels: { app: 'web' } },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } },
    },
    status: { replicas: 0 },
    ...extra,
  };
}

const record = (old: KubeObject | undefined, next: KubeObject, manager: string, time = T0) =>
  updateManagedFields({ old, new: next, manager, apiVersion: 'apps/v1', time, schema });

describe('updateManagedFields', () => {
  it('gives the creator everything but identity metadata and status', () => {
    const [entry, ...rest] = record(undefined, deployment(2), 'kubectl-create');
    assert.equal(rest.length, 0);
    assert.deepEqual({ ...entry, fieldsV1: undefined }, { manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1', time: '2025-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: undefined });
    const f = entry.fieldsV1 as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(f).sort(), ['f:metadata', 'f:spec']);
    assert.deepEqual(f['f:metadata'], { 'f:labels': { '.': {}, 'f:app': {} } });
    const containers = ((f['f:spec']['f:template'] as Record<string, Record<string, Record<string, unknown>>>)['f:spec']['f:containers']);
    // Objects start from {} rather than a Go zero value, so the new list is owned as a whole too (as for custom resources upstream).
    assert.deepEqual(containers, { '.': {}, 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } });
    assert.deepEqual(f['f:spec']['f:selector'], {}, 'a label selector is atomic');
  });

  it('moves a changed field to its writer and drops emptied managers', () => {
    const created = deployment(2);
    created.metadata!.managedFields = record(undefined, created, 'kubectl-create');
    const scaled = deployment(3);
    scaled.metadata!.managedFields = created.metadata!.managedFields;
    const entries = record(created, scaled, 'kubectl-scale', T1);
    assert.deepEqual(entries.map((e) => e.manager), ['kubectl-create', 'kubectl-scale']);
    assert.deepEqual(entries[1].fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.ok(!JSON.stringify(entries[0].fieldsV1).includes('f:replicas'));
    assert.equal(entries[0].time, '2025-01-01T00:00:00Z', 'losing a field keeps the old time');

    // Scaling back through the same manager only changes its time; an unchanged write changes nothing.
    const again = record(scaled, { ...deployment(3), metadata: { ...deployment(3).metadata, managedFields: entries } }, 'kubectl-scale', T1);
    assert.deepEqual(again, entries);
  });

  it('drops a manager whose only field is removed by someone else', () => {
    const old = deployment(2, 'nginx', { metadata: { name: 'web', annotations: { a: '1' } } });
    old.metadata!.managedFields = [{ manager: 'annotator', operation: 'Update', apiVersion: 'apps/v1', time: '2024-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:a': {} } } } }];
    const next = deployment(2, 'nginx', { metadata: { name: 'web', managedFields: old.metadata!.managedFields } });
    const entries = record(old, next, 'kubectl-edit');
    assert.ok(!entries.some((e) => e.manager === 'annotator'));
  });

  it('takes managedFields a client sends (kubectl migrating client-side apply), and clears them on []', () => {
    const old = deployment(2);
    old.metadata!.managedFields = record(undefined, old, 'kubectl-client-side-apply');
    const migrated = [{ ...old.metadata!.managedFields[0], manager: 'kubectl', operation: 'Apply' }];
    const next = deployment(2);
    next.metadata!.managedFields = migrated;
    assert.deepEqual(record(old, next, 'kubectl'), migrated);

    const cleared = deployment(2);
    cleared.metadata!.managedFields = [];
    assert.deepEqual(record(old, cleared, 'kubectl-patch'), []);
  });

  it('records status writes under the subresource, and never spec for them', () => {
    const old = deployment(2);
    const next = deployment(5, 'nginx', { status: { replicas: 2 } });
    const entries = updateManagedFields({ old, new: next, manager: 'kube-controller-manager', apiVersion: 'apps/v1', time: T0, subresource: 'status', schema });
    assert.deepEqual(entries, [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'apps/v1', time: '2025-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:replicas': {} } }, subresource: 'status' }]);
  });
});
