import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../api/object.js';
import { ApiError, notFound } from '../../machinery/api-error.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes } from './admission.js';
import { forbiddenNodeLabels, NodeRestriction } from './node-restriction.js';

const worker1 = { name: 'system:node:worker-1', groups: ['system:nodes'] };

function storeOf(objects: Record<string, KubeObject>): () => RegistryStore {
  const store = {
    async get(namespace: string, name: string) {
      const o = objects[`${namespace}/${name}`];
      if (!o) throw notFound({ group: '', resource: 'x' }, name);
      return o;
    },
  };
  return () => store as unknown as RegistryStore;
}

const pods = storeOf({ 'default/web': { metadata: { name: 'web', namespace: 'default', uid: 'pod-uid' }, spec: { nodeName: 'worker-2' } } as KubeObject });
const nodes = storeOf({ '/worker-1': { metadata: { name: 'worker-1', uid: 'node-uid' } } as KubeObject });
const plugin = new NodeRestriction({ pods, nodes });

function attrs(over: Partial<AdmissionAttributes>): AdmissionAttributes {
  return {
    operation: 'UPDATE', kind: { group: '', version: 'v1', kind: 'Node' }, resource: { group: '', version: 'v1', resource: 'nodes' },
    subresource: '', namespace: '', name: 'worker-1', dryRun: false, user: worker1, ...over,
  };
}

async function refusal(a: AdmissionAttributes): Promise<string> {
  try {
    await plugin.validate(a);
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 403);
    return err.message;
  }
  return 'admitted';
}

describe('NodeRestriction', () => {
  it("refuses a node's writes to another node, to its taints and to restricted labels", async () => {
    const node = (labels: Record<string, string>, taints: unknown[] = []) => ({ metadata: { name: 'worker-1', labels }, spec: { taints } }) as KubeObject;
    assert.equal(await refusal(attrs({ name: 'worker-2', subresource: 'status' })), 'nodes "worker-2" is forbidden: node "worker-1" is not allowed to modify node "worker-2"');
    assert.equal(await refusal(attrs({ object: node({}, [{ key: 'k', effect: 'NoSchedule' }]), oldObject: node({}) })), 'nodes "worker-1" is forbidden: node "worker-1" is not allowed to modify taints');
    assert.equal(await refusal(attrs({ object: node({ 'node-role.kubernetes.io/control-plane': '' }), oldObject: node({}) })), 'nodes "worker-1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane');
    assert.equal(await refusal(attrs({ object: node({ 'kubernetes.io/hostname': 'worker-1', 'node.kubernetes.io/pool': 'a', mine: 'x' }), oldObject: node({}) })), 'admitted');
    assert.deepEqual(forbiddenNodeLabels({ 'node-restriction.kubernetes.io/a': '1', 'example.com/b': '2', 'k8s.io/c': '3' }, undefined), ['k8s.io/c', 'node-restriction.kubernetes.io/a']);
    // other users are not this plugin's business
    assert.equal(await refusal(attrs({ name: 'worker-2', user: { name: 'jane', groups: [] } })), 'admitted');
  });

  it("refuses pod status of another node's pod, and non-mirror or referencing pods", async () => {
    const theirs = { metadata: { name: 'web', namespace: 'default' }, spec: { nodeName: 'worker-2' } } as KubeObject;
    const podAttrs = (over: Partial<AdmissionAttributes>) => attrs({ resource: { group: '', version: 'v1', resource: 'pods' }, namespace: 'default', name: 'web', ...over });
    assert.equal(await refusal(podAttrs({ subresource: 'status', object: theirs, oldObject: theirs })), 'pods "web" is forbidden: node "worker-1" can only update pod status for pods with spec.nodeName set to itself');
    const plain = { metadata: { name: 'web', namespace: 'default' }, spec: { nodeName: 'worker-1' } } as KubeObject;
    assert.equal(await refusal(podAttrs({ operation: 'CREATE', object: plain })), 'pods "web" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "worker-1" can only create mirror pods');
    const mirror = (spec: Record<string, unknown>) => ({
      metadata: { name: 'web', namespace: 'default', annotations: { 'kubernetes.io/config.mirror': 'x' }, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'worker-1', uid: 'node-uid', controller: true }] },
      spec: { nodeName: 'worker-1', ...spec },
    }) as KubeObject;
    assert.equal(await refusal(podAttrs({ operation: 'CREATE', object: mirror({}) })), 'admitted');
    assert.equal(await refusal(podAttrs({ operation: 'CREATE', object: mirror({ volumes: [{ name: 's', secret: { secretName: 'x' } }] }) })), 'pods "web" is forbidden: node "worker-1" can not create pods that reference secrets');
    assert.equal(await refusal(podAttrs({ operation: 'DELETE', oldObject: theirs })), 'pods "web" is forbidden: node "worker-1" can only delete pods with spec.nodeName set to itself');
  });

  it('binds node token requests to pods on the node', async () => {
    const tokenAttrs = (ref: Record<string, string> | undefined) => attrs({
      operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'serviceaccounts' }, subresource: 'token', namespace: 'default', name: 'default',
      object: { spec: { audiences: [], ...(ref ? { boundObjectRef: ref } : {}) } } as unknown as KubeObject,
    });
    assert.equal(await refusal(tokenAttrs(undefined)), 'serviceaccounts "default" is forbidden: node requested token not bound to a pod');
    assert.equal(await refusal(tokenAttrs({ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'pod-uid' })), 'serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node');
  });
});
