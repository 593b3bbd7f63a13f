import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { findKind } from '../resources.js';
import { applyDefaults } from './index.js';
import { imageTag } from './pod-spec.js';

const podInfo = findKind('', 'v1', 'Pod')!;

test('image tags decide the pull policy', () => {
  assert.equal(imageTag('nginx'), 'latest');
  assert.equal(imageTag('registry:5000/nginx'), 'latest');
  assert.equal(imageTag('registry:5000/nginx:1.2'), '1.2');
  assert.equal(imageTag('nginx@sha256:abc'), '');
});

test('pod defaults match upstream', () => {
  const pod: Pod = {
    metadata: { name: 'p' },
    spec: {
      containers: [
        {
          name: 'a',
          image: 'nginx',
          ports: [{ containerPort: 80 }],
          env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          livenessProbe: { httpGet: { port: 80 } },
          resources: { limits: { cpu: '1' } },
        },
        { name: 'b', image: 'nginx:1.25' },
      ],
      volumes: [{ name: 's', secret: { secretName: 's' } }, { name: 'c', configMap: { name: 'c' } }, { name: 'h', hostPath: { path: '/x' } }, { name: 'e' }],
    },
  };
  applyDefaults(pod as never, podInfo);
  const spec = pod.spec!;
  assert.equal(spec.restartPolicy, 'Always');
  assert.equal(spec.dnsPolicy, 'ClusterFirst');
  assert.equal(spec.terminationGracePeriodSeconds, 30);
  assert.equal(spec.schedulerName, 'default-scheduler');
  assert.deepEqual(spec.securityContext, {});
  assert.equal(spec.enableServiceLinks, true);
  const [a, b] = spec.containers;
  assert.equal(a.imagePullPolicy, 'Always');
  assert.equal(b.imagePullPolicy, 'IfNotPresent');
  assert.equal(a.terminationMessagePath, '/dev/termination-log');
  assert.equal(a.terminationMessagePolicy, 'File');
  assert.equal(a.ports![0].protocol, 'TCP');
  assert.equal(a.env![0].valueFrom!.fieldRef!.apiVersion, 'v1');
  assert.deepEqual(a.livenessProbe, { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  assert.deepEqual(a.resources!.requests, { cpu: '1' });
  assert.equal(spec.volumes![0].secret!.defaultMode, 420);
  assert.equal(spec.volumes![1].configMap!.defaultMode, 420);
  assert.equal(spec.volumes![2].hostPath!.type, '');
  assert.deepEqual(spec.volumes![3].emptyDir, {});
});
