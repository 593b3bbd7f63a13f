import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messagesFor, updateMessagesFor } from './test-support.js';

const ns = { name: 'x', namespace: 'default', resourceVersion: '1' };

test('PVC needs access modes and a storage request', () => {
  assert.deepEqual(messagesFor({ kind: 'PersistentVolumeClaim', metadata: ns, spec: {} }), [
    'spec.accessModes: Required value: at least 1 access mode is required',
    'spec.resources[storage]: Required value',
  ]);
  const pvc = { kind: 'PersistentVolumeClaim', metadata: ns, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
  assert.deepEqual(messagesFor(pvc), []);
  const changed = structuredClone(pvc);
  changed.spec.accessModes = ['ReadWriteMany'];
  assert.deepEqual(updateMessagesFor(changed, pvc), [
    'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
  ]);
});

test('a bound claim may grow, and come back down only while above status.capacity', () => {
  const bound = (request: string, capacity: string) => ({
    kind: 'PersistentVolumeClaim',
    metadata: ns,
    spec: { accessModes: ['ReadWriteOnce'], volumeName: 'pv1', resources: { requests: { storage: request } } },
    status: { phase: 'Bound', capacity: { storage: capacity } },
  });
  assert.deepEqual(updateMessagesFor(bound('2Gi', '1Gi'), bound('1Gi', '1Gi')), []);
  // recovering from an expansion that never finished: 3Gi asked, 1Gi held, 2Gi is fine
  assert.deepEqual(updateMessagesFor(bound('2Gi', '1Gi'), bound('3Gi', '1Gi')), []);
  assert.deepEqual(updateMessagesFor(bound('1Gi', '1Gi'), bound('3Gi', '1Gi')), ['spec.resources.requests.storage: Forbidden: field can not be less than status.capacity']);
  assert.deepEqual(updateMessagesFor(bound('512Mi', '1Gi'), bound('1Gi', '1Gi')), ['spec.resources.requests.storage: Forbidden: field can not be less than status.capacity']);
});

test('PV needs capacity, access modes and exactly one source', () => {
  const pv = { kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } };
  assert.deepEqual(messagesFor(pv), []);
  assert.deepEqual(messagesFor({ kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec: {} }), [
    'spec.accessModes: Required value',
    'spec.capacity: Required value',
    'spec: Required value: must specify a volume type',
  ]);
});

test('PDB: minAvailable xor maxUnavailable', () => {
  const pdb = { kind: 'PodDisruptionBudget', metadata: ns, spec: { minAvailable: 1, maxUnavailable: '50%', selector: { matchLabels: { a: 'b' } } } };
  assert.deepEqual(messagesFor(pdb, 'policy'), [
    'spec: Invalid value: {"minAvailable":1,"maxUnavailable":"50%","selector":{"matchLabels":{"a":"b"}}}: minAvailable and maxUnavailable cannot be both set',
  ]);
});

test('PriorityClass value range, system prefix and immutability', () => {
  const pc = (name: string, value: number) => ({ kind: 'PriorityClass', metadata: { name, resourceVersion: '1' }, value });
  assert.deepEqual(messagesFor(pc('high', 1000), 'scheduling.k8s.io'), []);
  assert.deepEqual(messagesFor(pc('high', 2000000000), 'scheduling.k8s.io'), ['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']);
  assert.deepEqual(messagesFor(pc('system-mine', 5), 'scheduling.k8s.io'), [
    "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
  ]);
  assert.deepEqual(updateMessagesFor(pc('high', 5), pc('high', 1000), 'scheduling.k8s.io'), ['value: Forbidden: may not be changed in an update.']);
});

test('EndpointSlice address type and addresses', () => {
  const slice = (addressType: string, addresses: string[]) => ({ kind: 'EndpointSlice', metadata: ns, addressType, endpoints: [{ addresses }] });
  assert.deepEqual(messagesFor(slice('IPv4', ['10.1.2.3']), 'discovery.k8s.io'), []);
  assert.deepEqual(messagesFor(slice('IPX', ['10.1.2.3']), 'discovery.k8s.io'), ['addressType: Unsupported value: "IPX": supported values: "FQDN", "IPv4", "IPv6"']);
  assert.deepEqual(messagesFor(slice('IPv4', ['nope', '127.0.0.1']), 'discovery.k8s.io'), [
    'endpoints[0].addresses[0]: Invalid value: "nope": must be a valid IPv4 address',
    'endpoints[0].addresses[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
  ]);
});

test('core Event involvedObject namespace must match', () => {
  const ev = { kind: 'Event', metadata: { name: 'e', namespace: 'default' }, involvedObject: { kind: 'Pod', namespace: 'other' } };
  assert.deepEqual(messagesFor(ev), ['involvedObject.namespace: Invalid value: "other": does not match event.namespace']);
});

test('ResourceQuota hard quantities and LimitRange ordering', () => {
  const rq = { kind: 'ResourceQuota', metadata: ns, spec: { hard: { pods: '1.5', widgets: '1', cpu: 'lots' } } };
  assert.deepEqual(messagesFor(rq), [
    'spec.hard[pods]: Invalid value: "1.5": must be an integer',
    'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota',
    "spec.hard[cpu]: Invalid value: \"lots\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  ]);
  const lr = { kind: 'LimitRange', metadata: ns, spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }] } };
  assert.ok(messagesFor(lr).includes('spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1'));
});

test('Lease duration and Namespace finalizers', () => {
  assert.deepEqual(messagesFor({ kind: 'Lease', metadata: ns, spec: { leaseDurationSeconds: 0 } }, 'coordination.k8s.io'), [
    'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
  ]);
  assert.deepEqual(messagesFor({ kind: 'Namespace', metadata: { name: 'n' }, spec: { finalizers: ['custom'] } }), [
    'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
  ]);
});
