import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messagesFor, updateMessagesFor } from './test-support.js';

const template = (labels: Record<string, string>, spec: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec },
});
function deploy(spec: Record<string, unknown>, rv = '1') {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default', resourceVersion: rv }, spec };
}

test('a defaulted deployment is valid', () => {
  assert.deepEqual(messagesFor(deploy({ selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }) }), 'apps'), []);
});

test('selector required and must match template labels', () => {
  assert.deepEqual(messagesFor(deploy({ template: template({ app: 'a' }) }), 'apps'), ['spec.selector: Required value']);
  assert.deepEqual(messagesFor(deploy({ selector: { matchLabels: { app: 'b' } }, template: template({ app: 'a' }) }), 'apps'), [
    'spec.template.metadata.labels: Invalid value: {"app":"a"}: `selector` does not match template `labels`',
  ]);
});

test('replicas and rolling update values', () => {
  const msgs = messagesFor(
    deploy({
      replicas: -1,
      selector: { matchLabels: { app: 'a' } },
      template: template({ app: 'a' }),
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } },
    }),
    'apps',
  );
  assert.deepEqual(msgs, [
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0',
  ]);
  const pct = messagesFor(deploy({ selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }), strategy: { rollingUpdate: { maxSurge: 'x' } } }), 'apps');
  assert.deepEqual(pct, [
    'spec.strategy.rollingUpdate.maxSurge: Invalid value: "x": a valid percent string must be a numeric string followed by an ending \'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')',
  ]);
});

test('template restartPolicy must be Always for controllers', () => {
  const msgs = messagesFor(deploy({ selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }, { restartPolicy: 'Never' }) }), 'apps');
  assert.deepEqual(msgs, ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']);
});

test('selector is immutable on update', () => {
  const old = deploy({ selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a', v: '1' }) });
  const next = deploy({ selector: { matchLabels: { app: 'a', v: '1' } }, template: template({ app: 'a', v: '1' }) });
  assert.deepEqual(updateMessagesFor(next, old, 'apps'), ['spec.selector: Invalid value: {"matchLabels":{"app":"a","v":"1"}}: field is immutable']);
});

test('statefulset spec updates are limited', () => {
  const sts = (serviceName: string, replicas: number) => ({
    kind: 'StatefulSet',
    metadata: { name: 's', namespace: 'default', resourceVersion: '1' },
    spec: { serviceName, replicas, selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }) },
  });
  assert.deepEqual(updateMessagesFor(sts('svc', 3), sts('svc', 1), 'apps'), []);
  assert.deepEqual(updateMessagesFor(sts('other', 1), sts('svc', 1), 'apps'), [
    "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
  ]);
});

test('daemonset and replicaset share the selector rules', () => {
  const ds = { kind: 'DaemonSet', metadata: { name: 'x', namespace: 'default' }, spec: { selector: {}, template: template({ app: 'a' }) } };
  assert.deepEqual(messagesFor(ds, 'apps'), ['spec.selector: Invalid value: {}: empty selector is invalid for daemonset']);
  const rs = { kind: 'ReplicaSet', metadata: { name: 'x', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }, { activeDeadlineSeconds: 5 }) } };
  assert.deepEqual(messagesFor(rs, 'apps'), ['spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported']);
});

test('statefulset containers may mount volumeClaimTemplates (the controller adds the volumes)', () => {
  const sts = (mount: string) => ({
    kind: 'StatefulSet',
    metadata: { name: 's', namespace: 'default' },
    spec: {
      serviceName: 's',
      selector: { matchLabels: { app: 'a' } },
      template: template({ app: 'a' }, { containers: [{ name: 'app', image: 'nginx', volumeMounts: [{ name: mount, mountPath: '/data' }] }] }),
      volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  });
  assert.deepEqual(messagesFor(sts('www'), 'apps'), []);
  assert.deepEqual(messagesFor(sts('other'), 'apps'), ['spec.template.spec.containers[0].volumeMounts[0].name: Not found: "other"']);
});
