import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deepFreeze } from './deep-freeze.js';

test('deepFreeze freezes every object and array of a graph, cycles included', () => {
  const pod = JSON.parse('{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]},"n":1,"s":"x","z":null}');
  const cyclic: { self?: unknown; list: unknown[] } = { list: [{}] };
  cyclic.self = cyclic;
  assert.equal(deepFreeze(pod), pod);
  deepFreeze(cyclic);
  for (const o of [pod, pod.metadata, pod.metadata.labels, pod.spec.containers, pod.spec.containers[0], pod.spec.containers[0].ports[0], cyclic, cyclic.list, cyclic.list[0]]) assert.ok(Object.isFrozen(o));
  assert.throws(() => {
    pod.spec.containers[0].name = 'd';
  }, TypeError);
  assert.equal(deepFreeze(3), 3);
  assert.equal(deepFreeze(null), null);
});
