import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet } from './field-set.js';
import { fieldSetFromFieldsV1, fieldSetToFieldsV1 } from './fields-v1.js';
import { elementFromFieldsV1Key, fieldElement, fieldPath, FieldPathError, keyElement, pathToString, valueElement } from './path-element.js';

// As `kubectl create deployment nginx --image=nginx` records it upstream (kubectl-create, apps/v1),
// with a port and a finalizer added to exercise multi-field keys and set values.
const UPSTREAM = {
  'f:metadata': { 'f:finalizers': { '.': {}, 'v:"example.com/guard"': {} }, 'f:labels': { '.': {}, 'f:app': {} } },
  'f:spec': {
    'f:progressDeadlineSeconds': {},
    'f:replicas': {},
    'f:selector': {},
    'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
    'f:template': {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"nginx"}': {
            '.': {},
            'f:image': {},
            'f:name': {},
            'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
          },
        },
        'f:dnsPolicy': {},
      },
    },
  },
};

describe('FieldsV1', () => {
  it('round-trips an upstream record byte for byte, in upstream order', () => {
    const set = fieldSetFromFieldsV1(UPSTREAM);
    assert.equal(JSON.stringify(fieldSetToFieldsV1(set)), JSON.stringify(UPSTREAM));
  });

  it('reads `.` as ownership of the element itself', () => {
    const set = fieldSetFromFieldsV1(UPSTREAM);
    const container = [...fieldPath('spec', 'template', 'spec', 'containers'), keyElement({ name: 'nginx' })];
    assert.ok(set.has(container));
    assert.ok(set.has([...container, fieldElement('image')]));
    assert.ok(set.has(fieldPath('metadata', 'labels')));
    assert.ok(!set.has(fieldPath('spec')), 'a parent without `.` is not a member');
    assert.ok(set.has([...fieldPath('metadata', 'finalizers'), valueElement('example.com/guard')]));
  });

  it('sorts fields, then keys, then values, and writes key fields sorted by name', () => {
    const set = FieldSet.of([fieldElement('b')], [fieldElement('a')], [fieldElement('l'), keyElement({ protocol: 'UDP', port: 53 })], [fieldElement('l'), keyElement({ protocol: 'TCP', port: 53 })]);
    assert.equal(JSON.stringify(fieldSetToFieldsV1(set)), '{"f:a":{},"f:b":{},"f:l":{"k:{\\"port\\":53,\\"protocol\\":\\"TCP\\"}":{},"k:{\\"port\\":53,\\"protocol\\":\\"UDP\\"}":{}}}');
  });

  it('rejects malformed element names', () => {
    for (const bad of ['x:1', 'k:[1]', 'k:{', 'i:-1', 'i:']) assert.throws(() => elementFromFieldsV1Key(bad), FieldPathError, bad);
    assert.throws(() => fieldSetFromFieldsV1({ 'f:a': 1 }), FieldPathError);
    assert.throws(() => fieldSetFromFieldsV1([]), FieldPathError);
  });

  it('prints paths as conflict messages do', () => {
    const p = [...fieldPath('spec', 'template', 'spec', 'containers'), keyElement({ name: 'nginx' }), fieldElement('ports'), keyElement({ protocol: 'TCP', containerPort: 80 })];
    assert.equal(pathToString(p), '.spec.template.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"]');
    assert.equal(pathToString([fieldElement('finalizers'), valueElement('a')]), '.finalizers[="a"]');
    assert.equal(pathToString([fieldElement('x'), elementFromFieldsV1Key('i:3')]), '.x[3]');
  });

  it('decodes key spellings a client may send into upstream\'s canonical ones, merging their members', () => {
    const set = fieldSetFromFieldsV1({
      'f:l': { 'k:{"protocol":"TCP","port":53}': { 'f:a': {} }, 'k:{"port":53,"protocol":"TCP"}': { '.': {}, 'f:b': {} }, 'i:01': {} },
      // a child holding only `.` makes its element a member and leaves no empty child behind
      'f:m': { 'f:n': { '.': {} } },
      'f:e': { '.': {} },
    });
    assert.equal(
      JSON.stringify(fieldSetToFieldsV1(set)),
      '{"f:e":{},"f:l":{"k:{\\"port\\":53,\\"protocol\\":\\"TCP\\"}":{".":{},"f:a":{},"f:b":{}},"i:1":{}},"f:m":{"f:n":{}}}',
    );
    assert.ok(set.equals(fieldSetFromFieldsV1(fieldSetToFieldsV1(set))));
    assert.ok(set.has(fieldPath('m', 'n')) && set.child(fieldPath('m', 'n')).isEmpty());
  });
});
