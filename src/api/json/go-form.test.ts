import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { KIND_MESSAGES } from '../protobuf/schemas/all-messages.js';
import { listEnvelopeGoForm, toGoForm } from './go-form.js';
import { goJson } from './go-json.js';

const FIXTURES = new URL('../protobuf/fixtures/', import.meta.url);

/** The same JSON value with every object's keys reversed, so order must come from the encoder. */
function shuffled(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shuffled);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, shuffled(x)]));
}

test("kubectl's own JSON of every captured kind (Go's encoding of the typed object) is already Go's form, byte for byte", () => {
  const all = readdirSync(FIXTURES);
  // the captures are the JSON files beside a .pb.b64 (the others are hand-written sources)
  const files = all.filter((f) => f.endsWith('.json') && all.includes(f.replace(/\.json$/, '.pb.b64')));
  assert.ok(files.length >= 25);
  for (const f of files) {
    const text = readFileSync(new URL(f, FIXTURES), 'utf8').trimEnd();
    const obj = JSON.parse(text) as unknown;
    assert.equal(JSON.stringify(toGoForm(obj), null, 4), text, f);
    assert.equal(JSON.stringify(toGoForm(shuffled(obj)), null, 4), text, `${f} (keys shuffled)`);
  }
});

const meta = { name: 'x', namespace: 'd', uid: 'u', resourceVersion: '5', creationTimestamp: '2024-01-01T00:00:00Z' };

test('non-pointer structs are always present, empty slices and maps dropped where the tag says omitempty', () => {
  const svc = toGoForm({ apiVersion: 'v1', kind: 'Service', metadata: { ...meta, ownerReferences: [], labels: {} }, spec: { clusterIP: '10.0.0.1', ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }] } });
  assert.equal(
    JSON.stringify(svc),
    '{"kind":"Service","apiVersion":"v1","metadata":{"name":"x","namespace":"d","uid":"u","resourceVersion":"5","creationTimestamp":"2024-01-01T00:00:00Z"},"spec":{"ports":[{"protocol":"TCP","port":80,"targetPort":80}],"clusterIP":"10.0.0.1"},"status":{"loadBalancer":{}}}',
  );
  const dep = toGoForm({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta, spec: { selector: {}, template: {} } }) as Record<string, unknown>;
  assert.deepEqual(dep.status, {});
  assert.deepEqual(dep.spec, { selector: {}, template: { metadata: { creationTimestamp: null }, spec: { containers: null } }, strategy: {} });
  const rs = toGoForm({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { ...meta, ownerReferences: [] }, spec: { replicas: 0, selector: { matchLabels: { a: 'b' } } }, status: { replicas: 0 } }) as unknown as Record<string, Record<string, unknown>>;
  assert.equal('ownerReferences' in rs.metadata, false);
  // ReplicaSetSpec.replicas is a pointer (kept at 0); ReplicaSetStatus.replicas has no omitempty (kept at 0)
  assert.equal(rs.spec.replicas, 0);
  assert.equal(rs.status.replicas, 0);
});

test('fields without omitempty are printed as their zero value or null', () => {
  const slice = toGoForm({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: meta, addressType: 'IPv4', endpoints: [] });
  assert.equal(JSON.stringify(slice).slice(JSON.stringify(slice).indexOf('"addressType"')), '"addressType":"IPv4","endpoints":[],"ports":null}');
  const ds = toGoForm({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: meta, status: { numberReady: 1 } }) as Record<string, unknown>;
  assert.deepEqual(ds.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 1 });
  const node = toGoForm({ apiVersion: 'v1', kind: 'Node', metadata: meta, status: { conditions: [{ status: 'True', type: 'Ready' }] } }) as unknown as Record<string, Record<string, unknown>>;
  assert.deepEqual(Object.keys(node.status), ['conditions', 'daemonEndpoints', 'nodeInfo']);
  assert.deepEqual(node.status.conditions, [{ type: 'Ready', status: 'True', lastHeartbeatTime: null, lastTransitionTime: null }]);
  assert.deepEqual(node.status.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
});

test('every kind with a layout keeps fields it does not know, after the known ones', () => {
  for (const key of Object.keys(KIND_MESSAGES)) {
    const i = key.lastIndexOf('/');
    const obj = toGoForm({ apiVersion: key.slice(0, i), kind: key.slice(i + 1), metadata: meta, futureField: { a: 1 } }) as Record<string, unknown>;
    assert.deepEqual(obj.futureField, { a: 1 }, key);
    assert.deepEqual(Object.keys(obj).slice(0, 3), ['kind', 'apiVersion', 'metadata'], key);
  }
});

test('lists: the envelope in Go order, items as they are', () => {
  const list = listEnvelopeGoForm({ apiVersion: 'v1', metadata: { resourceVersion: '9' }, items: [{ b: 1, a: 2 }], kind: 'PodList' });
  assert.equal(JSON.stringify(list), '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[{"b":1,"a":2}]}');
  assert.equal(listEnvelopeGoForm({ kind: 'APIResourceList', resources: [] }), undefined);
});

test("Go's encoder: HTML escaped, trailing newline; pretty is MarshalIndent", () => {
  assert.equal(goJson({ a: '<b>&' }), '{"a":"\\u003cb\\u003e\\u0026"}\n');
  assert.equal(goJson({ a: [1], b: {} }, true), '{\n  "a": [\n    1\n  ],\n  "b": {}\n}');
});
