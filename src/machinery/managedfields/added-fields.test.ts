import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonObject } from '../patch/json-value.js';
import { listSchemaForKind } from './builtin-list-schema.js';
import { addedFields, compareObjects } from './compare.js';
import { fieldSetToFieldsV1 } from './fields-v1.js';

const deployment: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' }, annotations: {}, finalizers: ['a', 'b'], ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u' }] },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          { name: 'a', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'X', value: '1' }], resources: {}, args: ['x', 'y'] },
          { name: 'b', image: 'busybox', command: ['sleep', '1'] },
        ],
        tolerations: [{ key: 'k', operator: 'Exists' }],
        volumes: [{ name: 'v', emptyDir: {} }],
        nodeSelector: null,
      },
    },
  },
  status: {},
};

const duplicateKeys: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'same', image: 'a' }, { name: 'same', image: 'b' }] },
};

for (const [name, obj, kind] of [
  ['a deployment with map, set and atomic lists', deployment, { group: 'apps', version: 'v1', kind: 'Deployment' }],
  ['a pod whose container list is not identifiable', duplicateKeys, { group: '', version: 'v1', kind: 'Pod' }],
] as const) {
  test(`the create fast path owns exactly what a comparison with {} reports: ${name}`, () => {
    const schema = listSchemaForKind(kind);
    const expected = compareObjects({}, obj, schema).added;
    assert.deepEqual(fieldSetToFieldsV1(addedFields(obj, schema)), fieldSetToFieldsV1(expected));
  });
}
