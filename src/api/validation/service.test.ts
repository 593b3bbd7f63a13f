import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messagesFor, updateMessagesFor } from './test-support.js';

function svc(spec: Record<string, unknown>, name = 'web') {
  return { kind: 'Service', metadata: { name, namespace: 'default', resourceVersion: '1' }, spec };
}

test('a defaulted ClusterIP service is valid', () => {
  assert.deepEqual(messagesFor(svc({ selector: { app: 'a' }, ports: [{ port: 80 }] })), []);
});

test('service names are DNS-1035 labels', () => {
  const msgs = messagesFor(svc({ ports: [{ port: 80 }] }, '1web'));
  assert.equal(msgs.length, 1);
  assert.match(msgs[0], /^metadata\.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters/);
});

test('ports required, named when several, unique, in range', () => {
  assert.deepEqual(messagesFor(svc({})), ['spec.ports: Required value']);
  assert.deepEqual(messagesFor(svc({ ports: [{ port: 80 }, { name: 'a', port: 0 }, { name: 'a', port: 81, protocol: 'ICMP' }] })), [
    'spec.ports[0].name: Required value',
    'spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    // targetPort defaults to port, so it is reported too, as upstream does.
    'spec.ports[1].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
    'spec.ports[2].name: Duplicate value: "a"',
    'spec.ports[2].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
  ]);
});

test('type supported values and nodePort on ClusterIP', () => {
  assert.deepEqual(messagesFor(svc({ type: 'Magic', ports: [{ port: 80 }] })), [
    'spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
  ]);
  assert.deepEqual(messagesFor(svc({ ports: [{ port: 80, nodePort: 30080 }] })), [
    "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
  ]);
});

test('ExternalName needs a DNS name and no ports', () => {
  assert.deepEqual(messagesFor(svc({ type: 'ExternalName', externalName: 'example.com.' })), []);
  assert.deepEqual(messagesFor(svc({ type: 'ExternalName' })), ['spec.externalName: Required value']);
});

test('cluster IP may not change once set', () => {
  const old = svc({ clusterIP: '10.0.0.5', ports: [{ port: 80 }] });
  const next = svc({ clusterIP: '10.0.0.6', ports: [{ port: 80 }] });
  assert.deepEqual(updateMessagesFor(next, old), ['spec.clusterIPs[0]: Invalid value: ["10.0.0.6"]: may not change once set']);
});

test('healthCheckNodePort only on LoadBalancer Services with externalTrafficPolicy Local', () => {
  assert.deepEqual(messagesFor(svc({ type: 'NodePort', externalTrafficPolicy: 'Local', healthCheckNodePort: 30100, ports: [{ port: 80 }] })), [
    "spec.healthCheckNodePort: Forbidden: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
  ]);
  assert.deepEqual(messagesFor(svc({ type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30100, ports: [{ port: 80 }] })), []);
});
