import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findDuplicateFields } from './duplicate-fields.js';
import { checkFieldValidation, findUnknownFields } from './field-validation.js';

const DEPLOY = { group: 'apps', version: 'v1', kind: 'Deployment' };

const deployment = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { 'any-key': 'v' }, annotations: { x: 'y' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    strategy: { rollingUpdate: { maxSurge: '25%' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx', resources: { limits: { cpu: '1' } } }] },
    },
    ...extra,
  },
});

describe('findUnknownFields', () => {
  it('accepts a well-formed object, including free-form maps', () => {
    assert.deepEqual(findUnknownFields(deployment(), 'apps', 'v1', 'Deployment'), []);
  });

  it('reports unknown fields with upstream paths', () => {
    const obj = deployment({ replicass: 3 });
    (obj.spec.template.spec.containers[0] as Record<string, unknown>).imagee = 'x';
    (obj.metadata as Record<string, unknown>).nmae = 'typo';
    (obj as Record<string, unknown>).extra = true;
    assert.deepEqual(findUnknownFields(obj, 'apps', 'v1', 'Deployment').sort(), [
      '.extra',
      '.metadata.nmae',
      '.spec.replicass',
      '.spec.template.spec.containers[0].imagee',
    ]);
  });

  it('does not descend into embedded objects or fieldsV1', () => {
    const rev = { apiVersion: 'apps/v1', kind: 'ControllerRevision', revision: 1, data: { anything: { goes: 1 } } };
    assert.deepEqual(findUnknownFields(rev, 'apps', 'v1', 'ControllerRevision'), []);
    const cm = { kind: 'ConfigMap', metadata: { managedFields: [{ fieldsV1: { 'f:data': { 'f:a': {} } }, bogus: 1 }] }, data: { a: 'b' } };
    assert.deepEqual(findUnknownFields(cm, '', 'v1', 'ConfigMap'), ['.metadata.managedFields[0].bogus']);
  });

  it('descends into map values that are objects', () => {
    const pod = { spec: { containers: [], overhead: { cpu: '1' } }, status: { containerStatuses: [{ name: 'a', state: { waiting: { reason: 'x', nope: 1 } } }] } };
    assert.deepEqual(findUnknownFields(pod, '', 'v1', 'Pod'), ['.status.containerStatuses[0].state.waiting.nope']);
  });

  it('honours x-kubernetes-preserve-unknown-fields', () => {
    const defs = {
      'io.k8s.api.apps.v1.Deployment': {
        type: 'object' as const,
        properties: { spec: { type: 'object' as const, 'x-kubernetes-preserve-unknown-fields': true }, kind: { type: 'string' as const } },
        'x-kubernetes-group-version-kind': [DEPLOY],
      },
    };
    assert.deepEqual(findUnknownFields({ kind: 'Deployment', spec: { whatever: 1 }, other: 1 }, 'apps', 'v1', 'Deployment', defs), ['.other']);
  });

  it('knows nothing about unknown kinds', () => {
    assert.deepEqual(findUnknownFields({ a: 1 }, 'example.com', 'v1', 'Widget'), []);
  });
});

describe('findDuplicateFields', () => {
  it('finds keys given twice in one object, at any depth', () => {
    const text = '{"kind":"Deployment","spec":{"replicas":1,"replicas":2,"template":{"spec":{"containers":[{"name":"a","name":"b"}]}}},"kind":"x"}';
    assert.deepEqual(findDuplicateFields(text), ['.spec.replicas', '.spec.template.spec.containers[0].name', '.kind']);
  });

  it('treats escaped keys by their value and ignores keys in different objects', () => {
    assert.deepEqual(findDuplicateFields('{"a":{"x":1},"b":{"x":1},"\\u0061":[1,2,{"c":null}]}'), ['.a']);
    assert.deepEqual(findDuplicateFields(' [ ] '), []);
  });

  it('returns nothing for malformed JSON', () => {
    assert.deepEqual(findDuplicateFields('{"a":1,"a":'), []);
    assert.deepEqual(findDuplicateFields('apiVersion: v1'), []);
  });
});

describe('checkFieldValidation', () => {
  const body = '{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":1,"replicas":2,"replicass":3}}';
  const obj = JSON.parse(body) as unknown;

  it('Strict: one BadRequest message with every finding, comma-joined', () => {
    const r = checkFieldValidation(body, obj, DEPLOY, 'Strict');
    assert.equal(r.error, 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: duplicate field "spec.replicas", unknown field "spec.replicass"');
    assert.deepEqual(r.warnings, []);
  });

  it('Warn: one warning per finding and no error', () => {
    const r = checkFieldValidation(body, obj, DEPLOY, 'Warn');
    assert.equal(r.error, undefined);
    assert.deepEqual(r.warnings, ['duplicate field "spec.replicas"', 'unknown field "spec.replicass"']);
  });

  it('Ignore, clean bodies and protobuf bodies (no text) pass', () => {
    // Ignore reports nothing, yet still names the unknown fields, which are dropped whatever the directive
    assert.deepEqual(checkFieldValidation(body, obj, DEPLOY, 'Ignore'), { warnings: [], strictErrors: [], unknownPaths: ['.spec.replicass'] });
    assert.deepEqual(checkFieldValidation(undefined, deployment(), DEPLOY, 'Strict'), { warnings: [], strictErrors: [], unknownPaths: [] });
    assert.equal(checkFieldValidation(undefined, obj, DEPLOY, 'Strict').error, 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replicass"');
  });
});
