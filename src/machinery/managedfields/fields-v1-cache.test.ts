import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../api/object.js';
import { listSchemaForKind } from './builtin-list-schema.js';
import { FieldSet } from './field-set.js';
import { decodeFieldsV1Shared, encodeFieldsV1Shared } from './fields-v1-cache.js';
import { fieldSetFromFieldsV1, fieldSetToFieldsV1 } from './fields-v1.js';
import { fieldPath, FieldPathError } from './path-element.js';
import { updateManagedFields } from './update-managed-fields.js';

const RECORD = { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {} } }, 'f:replicas': {} } };

describe('shared FieldsV1 decoding and encoding', () => {
  it('decodes equal records once, into a frozen set equal to a fresh decode', () => {
    const a = decodeFieldsV1Shared(structuredClone(RECORD));
    const b = decodeFieldsV1Shared(structuredClone(RECORD));
    assert.equal(a, b);
    assert.ok(a.isFrozen());
    assert.ok(a.equals(fieldSetFromFieldsV1(RECORD)));
    assert.throws(() => a.insert(fieldPath('x')), /frozen/);
    // a different record is another set
    assert.notEqual(decodeFieldsV1Shared({ 'f:spec': { 'f:replicas': {} } }), a);
  });

  it('malformed records still throw, as the decoder does', () => {
    assert.throws(() => decodeFieldsV1Shared([]), FieldPathError);
    assert.throws(() => decodeFieldsV1Shared({ 'f:a': 1 }), FieldPathError);
    assert.throws(() => decodeFieldsV1Shared({ 'x:a': {} }), FieldPathError);
  });

  it('encodes a frozen set once, frozen, exactly as the encoder would; other sets fresh each time', () => {
    // a client's spelling that is not upstream's order comes back in upstream's order
    const set = decodeFieldsV1Shared({ 'f:spec': { 'f:replicas': {} }, 'f:metadata': { 'f:labels': { 'f:app': {}, '.': {} } } });
    const json = encodeFieldsV1Shared(set);
    assert.equal(encodeFieldsV1Shared(set), json);
    assert.ok(Object.isFrozen(json) && Object.isFrozen(json['f:metadata']));
    assert.equal(JSON.stringify(json), JSON.stringify(fieldSetToFieldsV1(fieldSetFromFieldsV1(json))));
    assert.equal(JSON.stringify(json), '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{}}}');
    const open = FieldSet.of(fieldPath('a'));
    const first = encodeFieldsV1Shared(open);
    assert.notEqual(encodeFieldsV1Shared(open), first);
    assert.ok(!Object.isFrozen(first));
  });

  it('a write reuses the records of managers whose fields it leaves alone, and re-encodes the others', () => {
    const schema = listSchemaForKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
    const base = (replicas: number, image: string): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
      spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } },
    });
    const write = (old: KubeObject | undefined, next: KubeObject, manager: string, second: number) => {
      const out = structuredClone(next);
      const entries = updateManagedFields({ old, new: out, manager, apiVersion: 'apps/v1', time: new Date(Date.UTC(2025, 0, 1, 0, 0, second)), schema });
      out.metadata!.managedFields = entries;
      // what the server stores and serves: a JSON round trip
      return JSON.parse(JSON.stringify(out)) as KubeObject;
    };
    const v1 = write(undefined, base(1, 'nginx'), 'creator', 0);
    const v2 = write(v1, { ...base(2, 'nginx'), metadata: v1.metadata }, 'scaler', 1);
    const v3 = write(v2, { ...base(3, 'nginx'), metadata: v2.metadata }, 'scaler', 2);
    const byManager = (o: KubeObject) => new Map((o.metadata?.managedFields ?? []).map((e) => [e.manager, e]));
    const [m2, m3] = [byManager(v2), byManager(v3)];
    // results are the uncached ones: the creator lost .spec.replicas to the scaler, who keeps only it
    assert.deepEqual(m3.get('scaler')?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.equal(m3.get('scaler')?.time, '2025-01-01T00:00:02Z');
    assert.ok(!JSON.stringify(m3.get('creator')?.fieldsV1).includes('f:replicas'));
    assert.deepEqual(m3.get('creator')?.fieldsV1, m2.get('creator')?.fieldsV1);
    // the third write changed nobody's fields: both records are the shared encodings, not new ones
    const again = updateManagedFields({ old: v3, new: { ...base(4, 'nginx'), metadata: v3.metadata }, manager: 'scaler', apiVersion: 'apps/v1', time: new Date(0), schema });
    const first = updateManagedFields({ old: v3, new: { ...base(5, 'nginx'), metadata: v3.metadata }, manager: 'scaler', apiVersion: 'apps/v1', time: new Date(0), schema });
    assert.equal(again.length, 2);
    for (let i = 0; i < again.length; i++) {
      assert.equal(again[i].fieldsV1, first[i].fieldsV1, again[i].manager);
      assert.ok(Object.isFrozen(again[i].fieldsV1));
    }
    // a manager that loses a field gets a new record
    const image = updateManagedFields({ old: v3, new: { ...base(3, 'httpd'), metadata: v3.metadata }, manager: 'scaler', apiVersion: 'apps/v1', time: new Date(0), schema });
    const creator = image.find((e) => e.manager === 'creator');
    assert.notEqual(creator?.fieldsV1, m3.get('creator')?.fieldsV1);
    assert.ok(!JSON.stringify(creator?.fieldsV1).includes('f:image'));
    assert.ok(JSON.stringify(image.find((e) => e.manager === 'scaler')?.fieldsV1).includes('f:image'));
  });
});
