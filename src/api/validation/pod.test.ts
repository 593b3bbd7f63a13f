import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messagesFor, updateMessagesFor } from './test-support.js';
import { POD_UPDATE_FORBIDDEN } from './pod.js';

function pod(spec: Record<string, unknown>, rv = '1') {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', resourceVersion: rv }, spec };
}
const c = (extra: Record<string, unknown> = {}) => ({ name: 'app', image: 'nginx:1.25', ...extra });

test('a minimal pod is valid once defaulted', () => {
  assert.deepEqual(messagesFor(pod({ containers: [c()] })), []);
});

test('containers are required', () => {
  assert.deepEqual(messagesFor(pod({ containers: [] })), ['spec.containers: Required value']);
});

test('container names: required, DNS label, unique across init containers', () => {
  const msgs = messagesFor(pod({ containers: [c(), c({ name: '' })], initContainers: [c()] }));
  assert.deepEqual(msgs, [
    'spec.containers[1].name: Required value',
    'spec.initContainers[0].name: Duplicate value: "app"',
  ]);
});

test('image is required', () => {
  assert.deepEqual(messagesFor(pod({ containers: [{ name: 'a' }] })), ['spec.containers[0].image: Required value']);
});

test('ports: range, protocol, name, duplicate host ports', () => {
  const msgs = messagesFor(
    pod({
      containers: [
        c({ ports: [{ containerPort: 70000 }, { containerPort: 80, protocol: 'HTTP' }, { containerPort: 81, name: 'Web' }] }),
        c({ name: 'b', ports: [{ containerPort: 1, hostPort: 8080 }, { containerPort: 2, hostPort: 8080 }] }),
      ],
    }),
  );
  assert.deepEqual(msgs, [
    'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    'spec.containers[0].ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    'spec.containers[0].ports[2].name: Invalid value: "Web": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    'spec.containers[1].ports[1].hostPort: Duplicate value: "TCP//8080"',
  ]);
});

test('env names and valueFrom', () => {
  const msgs = messagesFor(pod({ containers: [c({ env: [{ name: '' }, { name: 'A=B' }, { name: 'X', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] })] }));
  assert.deepEqual(msgs, [
    'spec.containers[0].env[0].name: Required value',
    'spec.containers[0].env[1].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than \'=\'',
    'spec.containers[0].env[2].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
  ]);
});

test('volumes and mounts', () => {
  const msgs = messagesFor(
    pod({
      containers: [c({ volumeMounts: [{ name: 'missing', mountPath: '/a' }, { name: 'data', mountPath: '/a' }] })],
      volumes: [{ name: 'data', emptyDir: {} }, { name: 'data', hostPath: { path: '/x' }, emptyDir: {} }],
    }),
  );
  assert.deepEqual(msgs, [
    'spec.volumes[1].emptyDir: Forbidden: may not specify more than 1 volume type',
    'spec.volumes[1].name: Duplicate value: "data"',
    'spec.containers[0].volumeMounts[0].name: Not found: "missing"',
    'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/a": must be unique',
  ]);
});

test('restartPolicy and dnsPolicy supported values', () => {
  assert.deepEqual(messagesFor(pod({ containers: [c()], restartPolicy: 'Sometimes', dnsPolicy: 'Cluster' })), [
    'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    'spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
  ]);
});

test('resources: requests may not exceed limits; quantities must parse', () => {
  const msgs = messagesFor(pod({ containers: [c({ resources: { limits: { cpu: '500m', memory: '1Gx' }, requests: { cpu: '1' } } })] }));
  assert.deepEqual(msgs, [
    'spec.containers[0].resources.limits[memory]: Invalid value: "1Gx": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
    'spec.containers[0].resources.requests[cpu]: Invalid value: "1": must be less than or equal to cpu limit of 500m',
    'spec.containers[0].resources.requests[memory]: Invalid value: "1Gx": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
  ]);
});

test('probes: handler required, liveness successThreshold must be 1', () => {
  const msgs = messagesFor(pod({ containers: [c({ readinessProbe: {}, livenessProbe: { tcpSocket: { port: 80 }, successThreshold: 2 } })] }));
  assert.deepEqual(msgs, [
    'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
    'spec.containers[0].readinessProbe: Required value: must specify a handler type',
  ]);
});

test('update: image may change, other spec fields may not', () => {
  const old = pod({ containers: [c()] });
  assert.deepEqual(updateMessagesFor(pod({ containers: [c({ image: 'nginx:1.26' })] }), old), []);
  const msgs = updateMessagesFor(pod({ containers: [c({ ports: [{ containerPort: 80 }] })] }), old);
  assert.equal(msgs.length, 1);
  assert.ok(msgs[0].startsWith(`spec: Forbidden: ${POD_UPDATE_FORBIDDEN}\n`));
  assert.ok(POD_UPDATE_FORBIDDEN.startsWith('pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`'));
});

test('update: nodeName cannot change once set; tolerations only added', () => {
  const old = pod({ containers: [c()], nodeName: 'n1', tolerations: [{ key: 'k', operator: 'Exists' }] });
  const moved = updateMessagesFor(pod({ containers: [c()], nodeName: 'n2', tolerations: [{ key: 'k', operator: 'Exists' }] }), old);
  assert.match(moved[0], /^spec: Forbidden: pod updates may not change fields other than/);
  assert.deepEqual(updateMessagesFor(pod({ containers: [c()], nodeName: 'n1', tolerations: [{ key: 'k', operator: 'Exists' }, { key: 'j', operator: 'Exists' }] }), old), []);
  assert.deepEqual(updateMessagesFor(pod({ containers: [c()], nodeName: 'n1', tolerations: [] }), old), [
    'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
  ]);
  assert.deepEqual(updateMessagesFor(pod({ containers: [c(), c({ name: 'b' })], nodeName: 'n1', tolerations: [{ key: 'k', operator: 'Exists' }] }), old), [
    'spec.containers: Forbidden: pod updates may not add or remove containers',
  ]);
});
