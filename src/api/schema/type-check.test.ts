import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findTypeError } from './type-check.js';

const deployment = { group: 'apps', version: 'v1', kind: 'Deployment' };
const pod = { group: '', version: 'v1', kind: 'Pod' };

test('well-typed objects pass, including nulls, quantities as numbers and int-or-string', () => {
  assert.equal(findTypeError({ spec: { replicas: 2, strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } }, paused: null } }, deployment), undefined);
  assert.equal(findTypeError({ spec: { containers: [{ name: 'c', resources: { limits: { cpu: 1, memory: '1Gi' } } }] } }, pod), undefined);
  assert.equal(findTypeError({ metadata: { labels: { a: 'b' } }, spec: { unknownField: 42 } }, deployment), undefined);
});

test('a mismatch is reported as Go decoding words it', () => {
  assert.equal(findTypeError({ spec: 42 }, deployment), 'json: cannot unmarshal number into Go struct field Deployment.spec of type v1.DeploymentSpec');
  assert.equal(findTypeError({ spec: { replicas: 'three' } }, deployment), 'json: cannot unmarshal string into Go struct field Deployment.spec.replicas of type int32');
  assert.equal(findTypeError({ spec: { replicas: 1.5 } }, deployment), 'json: cannot unmarshal number 1.5 into Go struct field Deployment.spec.replicas of type int32');
  assert.equal(
    findTypeError({ spec: { containers: [{ name: 'c', image: ['x'] }] } }, pod),
    'json: cannot unmarshal array into Go struct field Pod.spec.containers.image of type string',
  );
  assert.equal(findTypeError({ metadata: { labels: { a: 1 } } }, pod), 'json: cannot unmarshal number into Go struct field Pod.metadata.labels of type string');
  assert.equal(findTypeError({ spec: { containers: {} } }, pod), 'json: cannot unmarshal object into Go struct field Pod.spec.containers of type []v1.Container');
});
