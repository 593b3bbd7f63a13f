import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorMessage } from '../../../api/validation/field-error.js';
import { applySchemaDefaults } from './defaulting.js';
import type { Schema } from './json-schema.js';
import { prune } from './pruning.js';
import { validateValue } from './validate.js';

const schema: Schema = {
  type: 'object',
  properties: {
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['secretName'],
      properties: {
        replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
        ratio: { type: 'number', exclusiveMinimum: true, minimum: 0, multipleOf: 0.5 },
        color: { type: 'string', enum: ['red', 'green'] },
        secretName: { type: 'string', minLength: 1, maxLength: 8 },
        duration: { type: 'string', pattern: '^[0-9]+(h|m|s)$' },
        when: { type: 'string', format: 'date-time' },
        nick: { type: 'string', nullable: true },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        tags: { type: 'array', maxItems: 2, items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } } },
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
        },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
};

const messages = (v: unknown) => validateValue(v, schema, '').map(fieldErrorMessage);

test('validation reports every failing field with upstream wording', () => {
  const cases: [unknown, string[]][] = [
    [{ spec: { secretName: 'tls' } }, []],
    [{ spec: {} }, ['spec.secretName: Required value']],
    [{ spec: { secretName: 'tls', replicas: 'two' } }, ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']],
    [{ spec: { secretName: 'tls', replicas: 1.5 } }, ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"']],
    [{ spec: { secretName: 'tls', replicas: 11 } }, ['spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10']],
    [{ spec: { secretName: 'tls', ratio: 0 } }, ['spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0']],
    [{ spec: { secretName: 'tls', ratio: 0.7 } }, ['spec.ratio: Invalid value: 0.7: spec.ratio in body should be a multiple of 0.5']],
    [{ spec: { secretName: 'tls', color: 'blue' } }, ['spec.color: Unsupported value: "blue": supported values: "red", "green"']],
    [{ spec: { secretName: '' } }, ['spec.secretName: Invalid value: "": spec.secretName in body should be at least 1 chars long']],
    [{ spec: { secretName: 'much-too-long' } }, ['spec.secretName: Too long: may not be more than 8 bytes']],
    [{ spec: { secretName: 'tls', duration: '1d' } }, ['spec.duration: Invalid value: "1d": spec.duration in body should match \'^[0-9]+(h|m|s)$\'']],
    [{ spec: { secretName: 'tls', when: 'yesterday' } }, ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"']],
    [{ spec: { secretName: 'tls', when: '2024-01-02T03:04:05Z', nick: null, port: 'http' } }, []],
    [{ spec: { secretName: null } }, ['spec.secretName: Invalid value: "null": spec.secretName in body must be of type string: "null"']],
    [{ spec: { secretName: 'tls', port: true } }, ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"']],
    [{ spec: { secretName: 'tls', tags: ['a', 'b', 'a'] } }, ['spec.tags: Too many: must have at most 2 items', 'spec.tags[2]: Duplicate value: "a"']],
    [{ spec: { secretName: 'tls', ports: [{ name: 'a' }, { name: 'a' }] } }, ['spec.ports[1]: Duplicate value: {"name":"a"}']],
    [{ spec: { secretName: 'tls', labels: { a: 1 } } }, ['spec.labels[a]: Invalid value: "integer": spec.labels[a] in body must be of type string: "integer"']],
    [{ spec: { secretName: 'tls', template: { metadata: { name: 'x' } } } }, ['spec.template.apiVersion: Required value: must not be empty', 'spec.template.kind: Required value: must not be empty']],
  ];
  for (const [value, want] of cases) assert.deepEqual(messages(value), want, JSON.stringify(value));
  // several failures are all reported
  assert.equal(messages({ spec: { replicas: -1, color: 'x', secretName: '' } }).length, 3);
});

test('defaulting fills missing and non-nullable null fields, inside lists too', () => {
  const obj = { spec: { secretName: 'tls', ports: [{ name: 'a' }, { name: 'b', protocol: 'UDP' }] } };
  applySchemaDefaults(obj, schema);
  assert.deepEqual(obj, { spec: { secretName: 'tls', replicas: 1, ports: [{ name: 'a', protocol: 'TCP' }, { name: 'b', protocol: 'UDP' }] } });
  const nulled = { spec: { replicas: null } };
  applySchemaDefaults(nulled, schema);
  assert.equal(nulled.spec.replicas, 1);
});

test('pruning drops undeclared fields and reports their paths', () => {
  const obj = {
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { name: 'a', labels: { x: 'y' } },
    extra: 1,
    spec: {
      secretName: 'tls',
      typo: true,
      ports: [{ name: 'a', weight: 3 }],
      labels: { any: 'thing' },
      raw: { free: { form: 1 }, known: { a: 'x', b: 'dropped' } },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { anything: 1 } },
    },
  };
  assert.deepEqual(prune(obj, schema), ['.extra', '.spec.typo', '.spec.ports[0].weight', '.spec.raw.known.b']);
  assert.deepEqual(obj, {
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { name: 'a', labels: { x: 'y' } },
    spec: {
      secretName: 'tls',
      ports: [{ name: 'a' }],
      labels: { any: 'thing' },
      raw: { free: { form: 1 }, known: { a: 'x' } },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { anything: 1 } },
    },
  });
});
