import assert from 'node:assert/strict';
import { test } from 'node:test';
import { customResourceTable } from './custom-resource-table.js';
import { jsonPathFind } from './simple-json-path.js';

const cert = {
  metadata: { name: 'web', creationTimestamp: '2024-01-01T00:00:00Z' },
  spec: { secretName: 'tls', replicas: 3, 'a.b': 'dotted' },
  status: { conditions: [{ type: 'Issuing', status: 'False' }, { type: 'Ready', status: 'True', message: 'ok' }] },
};

test('the JSONPath subset: fields, indexes, wildcards, quoted keys, filters', () => {
  assert.deepEqual(jsonPathFind(cert, '.spec.secretName'), ['tls']);
  assert.deepEqual(jsonPathFind(cert, '.status.conditions[1].type'), ['Ready']);
  assert.deepEqual(jsonPathFind(cert, '.status.conditions[*].type'), ['Issuing', 'Ready']);
  assert.deepEqual(jsonPathFind(cert, ".spec['a.b']"), ['dotted']);
  assert.deepEqual(jsonPathFind(cert, '.status.conditions[?(@.type=="Ready")].message'), ['ok']);
  assert.deepEqual(jsonPathFind(cert, '.spec.missing.deeper'), []);
});

test('printer columns become table cells; dates become ages; none means Age alone', () => {
  const now = new Date('2024-01-01T00:05:00Z');
  const t = customResourceTable([
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Missing', type: 'string', jsonPath: '.spec.nothing', priority: 1 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ]);
  assert.deepEqual(
    t.columns.map((c) => `${c.name}:${c.type}:${c.priority}`),
    ['Name:string:0', 'Ready:string:0', 'Replicas:integer:0', 'Missing:string:1', 'Age:date:0'],
  );
  assert.deepEqual(t.cells(cert, now), ['web', 'True', 3, null, '5m']);
  assert.deepEqual(customResourceTable(undefined).cells(cert, now), ['web', '5m']);
});
