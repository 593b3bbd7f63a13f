import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import { fieldErrorMessage } from '../../api/validation/field-error.js';
import { setDefaults } from './crd-strategy.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate } from './crd-validation.js';

function crd(patch: (c: CustomResourceDefinition) => void = () => {}): CustomResourceDefinition {
  const c: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com', resourceVersion: '1' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } }],
    },
  };
  patch(c);
  setDefaults(c);
  return c;
}

const messages = (c: CustomResourceDefinition) => validateCustomResourceDefinition(c).map(fieldErrorMessage);

test('a well-formed CRD is valid and defaulted as upstream', () => {
  const c = crd();
  assert.deepEqual(messages(c), []);
  assert.equal(c.spec.names.singular, 'widget');
  assert.equal(c.spec.names.listKind, 'WidgetList');
  assert.deepEqual(c.spec.conversion, { strategy: 'None' });
});

test('names, group, scope and versions are checked with upstream messages', () => {
  const cases: [string, (c: CustomResourceDefinition) => void, string[]][] = [
    ['name must be plural.group', (c) => (c.metadata!.name = 'gadgets.example.com'), ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group']],
    [
      'group needs a dot',
      (c) => {
        c.spec.group = 'example';
        c.metadata!.name = 'widgets.example';
      },
      ['spec.group: Invalid value: "example": should be a domain with at least one dot'],
    ],
    ['scope', (c) => (c.spec.scope = 'Global'), ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']],
    ['kind and listKind differ', (c) => (c.spec.names.listKind = 'Widget'), ['spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same']],
    [
      'plural is a DNS-1035 label',
      (c) => {
        c.spec.names.plural = 'Widgets';
        c.metadata!.name = 'Widgets.example.com';
      },
      [
        "metadata.name: Invalid value: \"Widgets.example.com\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "spec.names.plural: Invalid value: \"Widgets\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    ['exactly one storage version', (c) => c.spec.versions.push({ name: 'v2', served: true, storage: true, schema: c.spec.versions[0].schema }), ['spec.versions: Invalid value: [{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object"}}}}},{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object"}}}}}]: must have exactly one version marked as storage version']],
    ['schemas are required', (c) => delete c.spec.versions[0].schema, ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']],
    [
      'printer columns',
      (c) => (c.spec.versions[0].additionalPrinterColumns = [{ name: 'X', type: 'float', jsonPath: 'spec.x' }]),
      [
        'spec.versions[0].additionalPrinterColumns[0].type: Unsupported value: "float": supported values: "boolean", "date", "integer", "number", "string"',
        'spec.versions[0].additionalPrinterColumns[0].jsonPath: Invalid value: "spec.x": must be a simple json path starting with .',
      ],
    ],
    [
      'scale paths',
      (c) => (c.spec.versions[0].subresources = { scale: { specReplicasPath: '.status.x', statusReplicasPath: '.status.replicas' } }),
      ['spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.x": should be a json path under .spec'],
    ],
    [
      'uniqueItems and $ref',
      (c) => (c.spec.versions[0].schema!.openAPIV3Schema!.properties!.spec = { type: 'array', items: { type: 'string' }, uniqueItems: true, $ref: '#/x' }),
      [
        'spec.versions[0].schema.openAPIV3Schema.properties[spec].$ref: Forbidden: $ref is not supported',
        'spec.versions[0].schema.openAPIV3Schema.properties[spec].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ],
    ],
  ];
  for (const [name, patch, want] of cases) assert.deepEqual(messages(crd(patch)), want, name);
});

test('non-structural schemas are refused with upstream messages, sorted', () => {
  const c = crd((c) => {
    c.spec.versions[0].schema!.openAPIV3Schema = {
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { labels: { type: 'object' } } },
        spec: { properties: { list: { type: 'array' } }, anyOf: [{ type: 'string', description: 'x' }] },
        emb: { 'x-kubernetes-embedded-resource': true } as object,
      },
      additionalProperties: false,
    };
  });
  assert.deepEqual(messages(c), [
    'spec.versions[0].schema.openAPIV3Schema.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
  ]);
  const structural = crd((c) => {
    c.spec.versions[0].schema!.openAPIV3Schema = {
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { labels: { type: 'object' } } },
        spec: { properties: { list: { type: 'array' } }, anyOf: [{ type: 'string', description: 'x' }] },
        emb: { 'x-kubernetes-embedded-resource': true } as object,
      },
    };
  });
  assert.deepEqual(messages(structural), [
    'spec.versions[0].schema.openAPIV3Schema.properties[emb].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
    'spec.versions[0].schema.openAPIV3Schema.properties[emb].type: Required value: must be object if x-kubernetes-embedded-resource is true',
    'spec.versions[0].schema.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].anyOf[0].description: Forbidden: must be empty to be structural',
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural',
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[list].items: Required value: must be specified',
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
  ]);
});

test('int-or-string anyOf and preserve-unknown-fields are structural', () => {
  const c = crd((c) => {
    c.spec.versions[0].schema!.openAPIV3Schema!.properties!.spec = {
      type: 'object',
      properties: {
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } as object,
        raw: { 'x-kubernetes-preserve-unknown-fields': true } as object,
      },
    };
  });
  assert.deepEqual(messages(c), []);
});

test('updates: group and plural are immutable; scope and kind once established', () => {
  const old = crd();
  old.status = { acceptedNames: { plural: 'widgets', kind: 'Widget' }, storedVersions: ['v1'], conditions: [{ type: 'Established', status: 'True' }] };
  const next = structuredClone(old);
  next.spec.scope = 'Cluster';
  next.spec.names.kind = 'Gadget';
  next.spec.names.listKind = 'GadgetList';
  assert.deepEqual(validateCustomResourceDefinitionUpdate(next, old).map(fieldErrorMessage), [
    'spec.scope: Invalid value: "Cluster": field is immutable',
    'spec.names.kind: Invalid value: "Gadget": field is immutable',
  ]);
  const dropped = structuredClone(old);
  dropped.spec.versions[0].name = 'v2';
  assert.deepEqual(validateCustomResourceDefinitionUpdate(dropped, old).map(fieldErrorMessage), ['status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions']);
});
