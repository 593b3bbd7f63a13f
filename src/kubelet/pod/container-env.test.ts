import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ContainerConfigError, containerArgv, containerEnv, expandVars, resourceFieldValue } from './container-env.js';

const pod: Pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u1', labels: { app: 'web' } }, spec: { nodeName: 'n1', containers: [] }, status: { podIP: '10.0.0.5' } };
const objects = {
  configMap: (ns: string, name: string) => (ns === 'ns' && name === 'cm' ? { data: { a: '1', b: '2' } } : undefined),
  secret: (ns: string, name: string) => (ns === 'ns' && name === 's' ? { data: { pw: Buffer.from('hunter2').toString('base64') } } : undefined),
};

test('expandVars replaces defined names, keeps unknown ones and unescapes $$', () => {
  assert.equal(expandVars('$(A)-$(B)-$$(A)-$$', { A: 'x' }), 'x-$(B)-$(A)-$');
});

test('containerEnv: envFrom, then env in order with references, fieldRef, configMap and secret keys', () => {
  const env = containerEnv({
    name: 'c',
    envFrom: [{ configMapRef: { name: 'cm' }, prefix: 'CM_' }],
    env: [
      { name: 'X', value: 'x' },
      { name: 'Y', value: '$(X)-$(CM_a)' },
      { name: 'NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
      { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'B', valueFrom: { configMapKeyRef: { name: 'cm', key: 'b' } } },
      { name: 'PW', valueFrom: { secretKeyRef: { name: 's', key: 'pw' } } },
      { name: 'OPT', valueFrom: { configMapKeyRef: { name: 'missing', key: 'k', optional: true } } },
    ],
  }, { pod, objects, allocatable: {} });
  assert.deepEqual(env, { CM_a: '1', CM_b: '2', X: 'x', Y: 'x-1', NAME: 'p', APP: 'web', IP: '10.0.0.5', B: '2', PW: 'hunter2' });
});

test('containerEnv: a missing non-optional configMap is a ContainerConfigError with upstream wording', () => {
  assert.throws(() => containerEnv({ name: 'c', env: [{ name: 'V', valueFrom: { configMapKeyRef: { name: 'nope', key: 'k' } } }] }, { pod, objects, allocatable: {} }), (e: unknown) => e instanceof ContainerConfigError && e.message === 'configmap "nope" not found');
});

test('resourceFieldValue rounds up by divisor and falls back to allocatable', () => {
  assert.equal(resourceFieldValue({ name: 'c', resources: { limits: { cpu: '250m' } } }, 'limits.cpu', undefined, {}), '1');
  assert.equal(resourceFieldValue({ name: 'c', resources: { limits: { cpu: '250m' } } }, 'limits.cpu', '1m', {}), '250');
  assert.equal(resourceFieldValue({ name: 'c', resources: { limits: { memory: '64Mi' } } }, 'limits.memory', '1Mi', {}), '64');
  assert.equal(resourceFieldValue({ name: 'c' }, 'limits.cpu', undefined, { cpu: '2' }), '2');
});

test('containerArgv joins command and args with expansion', () => {
  assert.deepEqual(containerArgv({ name: 'c', command: ['sh', '-c'], args: ['echo $(X)'] }, { X: 'hi' }), ['sh', '-c', 'echo hi']);
});
