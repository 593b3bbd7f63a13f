import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION, isMirrorPod, ManifestError, parseManifest } from './static-pod-manifest.js';

const yaml = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: c\n    image: busybox\n    command: [sleep, "60"]\n';

test('a manifest becomes a static pod bound to the node, named after it, with a content hash uid', () => {
  const pod = parseManifest(yaml, '/m/web.yaml', 'Node1');
  assert.equal(pod.metadata?.name, 'web-node1');
  assert.equal(pod.metadata?.namespace, 'default');
  assert.equal(pod.spec?.nodeName, 'Node1');
  assert.equal(pod.spec?.restartPolicy, 'Always');
  assert.match(pod.metadata?.uid ?? '', /^[0-9a-f]{32}$/);
  assert.equal(pod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION], pod.metadata?.uid);
  assert.equal(pod.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION], 'file');
  assert.equal(isMirrorPod(pod), false);
  // stable for the same content, new for an edit
  assert.equal(parseManifest(yaml, '/m/web.yaml', 'Node1').metadata?.uid, pod.metadata?.uid);
  assert.notEqual(parseManifest(yaml.replace('"60"', '"61"'), '/m/web.yaml', 'Node1').metadata?.uid, pod.metadata?.uid);
  assert.notEqual(parseManifest(yaml, '/m/web.yaml', 'node2').metadata?.uid, pod.metadata?.uid);
});

test('JSON works too; anything but exactly one valid Pod is a ManifestError', () => {
  const json = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'j', namespace: 'kube-system' }, spec: { containers: [{ name: 'c' }] } });
  assert.equal(parseManifest(json, 'j.json', 'n').metadata?.namespace, 'kube-system');
  for (const bad of ['kind: Service\nmetadata: {name: x}', 'kind: Pod\nspec: {containers: [{name: c}]}', 'kind: Pod\nmetadata: {name: x}\nspec: {}', `${yaml}---\n${yaml}`, 'a: [']) {
    assert.throws(() => parseManifest(bad, 'bad.yaml', 'n'), ManifestError, bad);
  }
});
