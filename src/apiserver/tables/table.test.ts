import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/object.js';
import { RESOURCES, findResource } from '../../api/resources.js';
import { buildTable, tableConvertorFor } from './index.js';

const NOW = new Date('2024-05-01T12:00:00Z');

function mustFind(group: string, resource: string) {
  const info = RESOURCES.find((r) => r.group === group && r.resource === resource);
  assert.ok(info, `${resource}.${group} is served`);
  return info;
}

void test('every served resource has a convertor whose rows fit its columns', () => {
  for (const info of RESOURCES) {
    const c = tableConvertorFor(info);
    assert.equal(c.columns[0]?.name === 'Name' || info.resource === 'events', true, `${info.resource} starts with Name`);
    for (const obj of [{}, { metadata: { name: 'x', creationTimestamp: '2024-05-01T11:00:00Z' }, spec: {}, status: {} }] as KubeObject[]) {
      assert.equal(c.cells(obj, NOW).length, c.columns.length, `${info.resource}.${info.group}`);
    }
  }
});

void test('resources without an upstream printer get the default Name / Created At table', () => {
  const limits = mustFind('', 'limitranges');
  const table = buildTable(tableConvertorFor(limits), [{ metadata: { name: 'lr', creationTimestamp: '2024-05-01T11:00:00.000Z' } }], { now: NOW, includeObject: 'None' });
  const cols = table.columnDefinitions as { name: string; type: string; format: string }[];
  assert.deepEqual(cols.map((c) => [c.name, c.type, c.format]), [['Name', 'string', 'name'], ['Created At', 'date', '']]);
  assert.deepEqual(table.rows, [{ cells: ['lr', '2024-05-01T11:00:00Z'] }]);
  assert.notEqual(tableConvertorFor(mustFind('', 'pods')), tableConvertorFor(limits));
});

void test('buildTable: kind, metadata and objects per includeObject', () => {
  const info = findResource('', 'v1', 'configmaps');
  assert.ok(info);
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', resourceVersion: '7', creationTimestamp: '2024-05-01T11:59:55Z' }, data: { a: '1' } };
  const opts = { now: NOW, resourceVersion: '42', continue: 'tok', remainingItemCount: 3 };

  const meta = buildTable(tableConvertorFor(info), [cm], { ...opts, includeObject: 'Metadata' });
  assert.equal(meta.kind, 'Table');
  assert.equal(meta.apiVersion, 'meta.k8s.io/v1');
  assert.deepEqual(meta.metadata, { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 });
  assert.deepEqual(meta.rows, [{ cells: ['cm', 1, '5s'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm.metadata } }]);

  const full = buildTable(tableConvertorFor(info), [cm], { now: NOW, includeObject: 'Object' });
  assert.deepEqual(full.rows, [{ cells: ['cm', 1, '5s'], object: cm }]);
  assert.deepEqual(full.metadata, {});

  const none = buildTable(tableConvertorFor(info), [cm], { now: NOW, includeObject: 'None' });
  assert.equal('object' in (none.rows as object[])[0], false);
});

void test('buildTable: noHeaders leaves the column definitions empty', () => {
  const info = mustFind('apps', 'deployments');
  assert.equal((buildTable(tableConvertorFor(info), [], { now: NOW, includeObject: 'None' }).columnDefinitions as unknown[]).length, 8);
  const table = buildTable(tableConvertorFor(info), [{ metadata: { name: 'd' } }], { now: NOW, includeObject: 'None', noHeaders: true });
  assert.deepEqual(table.columnDefinitions, []);
  assert.equal((table.rows as unknown[]).length, 1);
});

void test('buildTable marks finished pods with a Completed row condition', () => {
  const info = mustFind('', 'pods');
  const table = buildTable(tableConvertorFor(info), [{ metadata: { name: 'p' }, status: { phase: 'Failed' } }, { metadata: { name: 'q' }, status: { phase: 'Running' } }], {
    now: NOW,
    includeObject: 'None',
  });
  const rows = table.rows as { conditions?: unknown }[];
  assert.deepEqual(rows[0].conditions, [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]);
  assert.equal(rows[1].conditions, undefined);
});
