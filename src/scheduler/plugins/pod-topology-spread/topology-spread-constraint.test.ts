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
