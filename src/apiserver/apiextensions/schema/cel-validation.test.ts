import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ErrorList } from '../../../api/validation/errors.js';
import { fieldErrorMessage } from '../../../api/validation/field-error.js';
import { compileSchemaRules } from './cel-rules.js';
import { validateCelRules } from './cel-validation.js';
import type { Schema } from './json-schema.js';

const schema: Schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
        { rule: 'self.mode == oldSelf.mode', message: 'mode is immutable' },
        { rule: "!has(self.secretName) || self.secretName.startsWith('tls-')", messageExpression: "'secretName ' + self.secretName + ' must start with tls-'", reason: 'FieldValueForbidden', fieldPath: '.secretName' },
      ],
      properties: {
        minReplicas: { type: 'integer' },
        maxReplicas: { type: 'integer' },
        mode: { type: 'string' },
        secretName: { type: 'string' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, port: { type: 'integer' } },
            'x-kubernetes-validations': [{ rule: 'self.port > 0 && self.port < 65536' }, { rule: 'self.port == oldSelf.port', message: 'port is immutable', reason: 'FieldValueInvalid' }],
          },
        },
        labels: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: 'size(self) <= 5', message: 'too long' }] } },
        since: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', optionalOldSelf: true, message: 'may not change' }] },
      },
    },
  },
};

const tree = compileSchemaRules(schema, '')!;
const run = (obj: unknown, old?: unknown) => validateCelRules(tree, obj, old).map(fieldErrorMessage);

describe('x-kubernetes-validations', () => {
  it('passes a valid object and reports a failing rule with its message on the node', () => {
    assert.deepEqual(run({ spec: { minReplicas: 1, maxReplicas: 3, mode: 'a' } }), []);
    assert.deepEqual(run({ spec: { minReplicas: 5, maxReplicas: 3, mode: 'a' } }), ['spec: Invalid value: "object": minReplicas must not exceed maxReplicas']);
  });

  it('uses messageExpression, reason and fieldPath', () => {
    assert.deepEqual(run({ spec: { minReplicas: 1, maxReplicas: 3, secretName: 'x' } }), ['spec.secretName: Forbidden: secretName x must start with tls-']);
  });

  it('runs transition rules only with an old value, correlating list-map items by key', () => {
    const old = { spec: { minReplicas: 1, maxReplicas: 3, mode: 'a', ports: [{ name: 'http', port: 80 }] } };
    assert.deepEqual(run({ spec: { minReplicas: 1, maxReplicas: 3, mode: 'b' } }), []);
    assert.deepEqual(run({ spec: { minReplicas: 1, maxReplicas: 3, mode: 'b', ports: [{ name: 'http', port: 80 }] } }, old), ['spec: Invalid value: "object": mode is immutable']);
    assert.deepEqual(run({ spec: { minReplicas: 1, maxReplicas: 3, mode: 'a', ports: [{ name: 'web', port: 81 }, { name: 'http', port: 8080 }] } }, old), ['spec.ports[1]: Invalid value: "object": port is immutable']);
  });

  it('reports scalars with their value, map values by key, and failed rule by default', () => {
    assert.deepEqual(run({ spec: { minReplicas: 1, maxReplicas: 3, ports: [{ name: 'x', port: 0 }], labels: { a: 'ok', b: 'toolong' } } }), [
      'spec.ports[0]: Invalid value: "object": failed rule: self.port > 0 && self.port < 65536',
      'spec.labels[b]: Invalid value: "string": too long',
    ]);
  });

  it('evaluates optionalOldSelf rules on create too', () => {
    const p = compileSchemaRules({ type: 'object', properties: { v: { type: 'string', 'x-kubernetes-validations': [{ rule: "oldSelf.hasValue() || self != 'bad'", optionalOldSelf: true }] } } }, '')!;
    assert.deepEqual(validateCelRules(p, { v: 'bad' }, undefined).map(fieldErrorMessage), ["v: Invalid value: \"string\": failed rule: oldSelf.hasValue() || self != 'bad'"]);
    assert.deepEqual(validateCelRules(p, { v: 'bad' }, { v: 'bad' }).map(fieldErrorMessage), []);
  });

  it('reports evaluation errors as upstream', () => {
    const p = compileSchemaRules({ type: 'object', 'x-kubernetes-validations': [{ rule: 'self.missing > 1' }] }, '')!;
    assert.deepEqual(validateCelRules(p, { a: 1 }, undefined).map(fieldErrorMessage), ['<nil>: Invalid value: "object": no such key: missing evaluating rule: self.missing > 1']);
  });

  it('rejects rules that do not compile with upstream paths and texts', () => {
    const errs: ErrorList = [];
    compileSchemaRules(
      {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            'x-kubernetes-validations': [{ rule: 'self.a ==' }, { rule: 'self.a == 1', reason: 'Bogus', messageExpression: '1' }, { rule: 'true', fieldPath: '.nope' }],
            properties: { a: { type: 'integer' } },
          },
        },
      },
      'spec.validation.openAPIV3Schema',
      errs,
    );
    const msgs = errs.map(fieldErrorMessage);
    assert.match(
      msgs[0] ?? '',
      /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: apiextensions\.ValidationRule\{Rule:"self\.a ==", Message:"", MessageExpression:"", Reason:\(\*apiextensions\.FieldValueErrorReason\)\(nil\), FieldPath:"", OptionalOldSelf:\(\*bool\)\(nil\)\}: compilation failed: ERROR: <input>:1:\d+: /,
    );
    assert.equal(msgs[1], 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].reason: Unsupported value: "Bogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"');
    assert.match(msgs[2] ?? '', /x-kubernetes-validations\[1\]\.messageExpression: Invalid value: .*: messageExpression compilation failed: must evaluate to string/);
    assert.match(msgs[3] ?? '', /x-kubernetes-validations\[2\]\.fieldPath: Invalid value: "\.nope": fieldPath must be a valid path: does not refer to a valid field/);
    assert.equal(msgs.length, 4);
  });
});
