import assert from 'node:assert/strict';
import { test } from 'node:test';
import { everything, nothing, selectorFromSet } from '../../../machinery/labels/selector.js';
import { NodeInfo } from '../../framework/node-info.js';
import { countMatching } from './topology-spread-constraint.js';

const pod = (name: string, labels: Record<string, string>, namespace = 'ns') => ({ metadata: { name, namespace, uid: name, labels }, spec: { containers: [] } });

test('countMatching follows the node as its pods change, per namespace and selector', () => {
  const ni = new NodeInfo({ metadata: { name: 'n1', labels: {} } });
  const web = selectorFromSet({ app: 'web' });
  assert.equal(countMatching(ni, web, 'ns'), 0);
  ni.addPod(pod('a', { app: 'web' }));
  ni.addPod(pod('b', { app: 'db' }));
  ni.addPod(pod('c', { app: 'web' }, 'other'));
  assert.equal(countMatching(ni, web, 'ns'), 1);
  assert.equal(countMatching(ni, selectorFromSet({ app: 'web' }), 'other'), 1, 'another namespace, an equal selector');
  ni.addPod(pod('d', { app: 'web' }));
  assert.equal(countMatching(ni, web, 'ns'), 2, 'a pod added after an answer counts');
  ni.removePod('ns/a');
  assert.equal(countMatching(ni, web, 'ns'), 1, 'a removed pod no longer counts');
  // the empty selector and the null one print alike but answer differently
  assert.equal(countMatching(ni, everything(), 'ns'), 2);
  assert.equal(countMatching(ni, nothing(), 'ns'), 0);
});

test('countMatching reads only the namespace asked about and leaves terminating pods out', () => {
  const ni = new NodeInfo({ metadata: { name: 'n1', labels: {} } });
  for (let i = 0; i < 5; i++) ni.addPod(pod(`x${i}`, { app: 'web' }, `other${i}`));
  ni.addPod(pod('a', { app: 'web' }));
  ni.addPod({ ...pod('gone', { app: 'web' }), metadata: { ...pod('gone', { app: 'web' }).metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
  assert.equal(countMatching(ni, selectorFromSet({ app: 'web' }), 'ns'), 1);
  assert.equal(countMatching(ni, selectorFromSet({ app: 'web' }), 'missing'), 0);
  assert.equal(countMatching(ni, everything(), 'other3'), 1);
  ni.addPod(pod('b', { app: 'web', tier: 'x' }));
  assert.equal(countMatching(ni, selectorFromSet({ app: 'web' }), 'ns'), 2, 'the grouping is rebuilt for the new generation');
});
