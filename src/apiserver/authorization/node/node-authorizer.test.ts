import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { attributesOf, type Attributes } from '../authorizer.js';
import { parseRequestInfo } from '../../request-info.js';
import { NodeAuthorizer } from './node-authorizer.js';
import { NodeGraph } from './node-graph-cache.js';

const worker1 = { name: 'system:node:worker-1', groups: ['system:nodes', 'system:authenticated'] };

function request(method: string, url: string, user = worker1): Attributes {
  const u = new URL(`https://x${url}`);
  return attributesOf(parseRequestInfo(method, u.pathname, u.searchParams), user);
}

function pod(name: string, node: string, spec: Partial<Pod['spec']> = {}): Pod {
  return { metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }], ...spec } };
}

describe('NodeGraph', () => {
  it('relates a node to what its pods refer to, and forgets it with the pod', () => {
    const g = new NodeGraph();
    g.addPod(pod('web', 'worker-1', {
      serviceAccountName: 'web-sa',
      imagePullSecrets: [{ name: 'pull' }],
      containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }], envFrom: [{ configMapRef: { name: 'env-cm' } }] }],
      volumes: [{ name: 'v', projected: { sources: [{ secret: { name: 'projected' } }, { configMap: { name: 'proj-cm' } }] } }, { name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
    }));
    for (const [kind, name] of [['secret', 'pull'], ['secret', 'env-secret'], ['secret', 'projected'], ['configmap', 'env-cm'], ['configmap', 'proj-cm'], ['persistentvolumeclaim', 'data'], ['serviceaccount', 'web-sa'], ['pod', 'web']] as const) {
      assert.ok(g.relates('worker-1', kind, 'default', name), `${kind} ${name}`);
      assert.ok(!g.relates('worker-2', kind, 'default', name), `${kind} ${name} on worker-2`);
      assert.ok(!g.relates('worker-1', kind, 'other', name), `${kind} ${name} in another namespace`);
    }
    assert.ok(!g.relates('worker-1', 'secret', 'default', 'unrelated'));
    // a persistent volume bound to the claim, and the secret it names
    g.addPV({ metadata: { name: 'pv-1' }, spec: { claimRef: { namespace: 'default', name: 'data' }, csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { name: 'csi-secret', namespace: 'storage' } } } });
    assert.ok(g.relates('worker-1', 'persistentvolume', '', 'pv-1'));
    assert.ok(g.relates('worker-1', 'secret', 'storage', 'csi-secret'));
    assert.ok(!g.relates('worker-2', 'persistentvolume', '', 'pv-1'));
    g.deletePod(pod('web', 'worker-1'));
    assert.ok(!g.relates('worker-1', 'secret', 'default', 'pull'));
    assert.ok(!g.relates('worker-1', 'persistentvolume', '', 'pv-1'));
  });

  it('counts a shared reference per pod and ignores unbound pods until they are bound', () => {
    const g = new NodeGraph();
    const spec = { volumes: [{ name: 's', secret: { secretName: 'shared' } }] };
    g.addPod(pod('a', '', spec));
    assert.ok(!g.relates('worker-1', 'secret', 'default', 'shared'));
    g.addPod(pod('a', 'worker-1', spec));
    g.addPod(pod('b', 'worker-1', spec));
    g.deletePod(pod('a', 'worker-1'));
    assert.ok(g.relates('worker-1', 'secret', 'default', 'shared'));
    g.deletePod(pod('b', 'worker-1'));
    assert.ok(!g.relates('worker-1', 'secret', 'default', 'shared'));
  });

  it("reads a pod's updates until it is bound, and none after (until it is deleted)", () => {
    const g = new NodeGraph();
    assert.equal(g.podSettled('default/a'), false, 'unknown');
    g.addPod(pod('a', ''));
    assert.equal(g.podSettled('default/a'), false, 'unbound: its binding is still to come');
    g.addPod(pod('a', 'worker-1'));
    assert.equal(g.podSettled('default/a'), true, 'bound: node and references are fixed');
    g.deletePod(pod('a', 'worker-1'));
    assert.equal(g.podSettled('default/a'), false, 'deleted: a new pod of that name is read again');
  });
});

describe('NodeAuthorizer', () => {
  const g = new NodeGraph();
  g.addPod(pod('web', 'worker-1', { volumes: [{ name: 's', secret: { secretName: 'mine' } }] }));
  const authz = new NodeAuthorizer(g);
  const decide = async (method: string, url: string) => authz.authorize(request(method, url));

  it('reads related secrets by get, or by list and watch narrowed to their name', async () => {
    assert.equal((await decide('GET', '/api/v1/namespaces/default/secrets/mine')).decision, 'Allow');
    assert.equal((await decide('GET', '/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Dmine&watch=true')).decision, 'Allow');
    assert.deepEqual(await decide('GET', '/api/v1/namespaces/default/secrets/theirs'), { decision: 'NoOpinion', reason: "no relationship found between node 'worker-1' and this object" });
    assert.deepEqual(await decide('GET', '/api/v1/namespaces/default/secrets'), { decision: 'NoOpinion', reason: 'No Object name found' });
    assert.deepEqual(await decide('GET', '/api/v1/secrets?watch=1'), { decision: 'NoOpinion', reason: 'can only read namespaced object of this type' });
    assert.deepEqual(await decide('PUT', '/api/v1/namespaces/default/secrets/mine'), { decision: 'NoOpinion', reason: 'can only read resources of this type' });
  });

  it('reads only its own Node and lists only its own pods', async () => {
    assert.equal((await decide('GET', '/api/v1/nodes/worker-1')).decision, 'Allow');
    assert.deepEqual(await decide('GET', '/api/v1/nodes/worker-2'), { decision: 'NoOpinion', reason: "node 'worker-1' cannot read 'worker-2', only its own Node object" });
    assert.deepEqual(await decide('GET', '/api/v1/nodes'), { decision: 'NoOpinion', reason: "node 'worker-1' cannot read all nodes, only its own Node object" });
    assert.equal((await decide('PATCH', '/api/v1/nodes/worker-2/status')).decision, 'Allow', 'NodeRestriction is what stops this');
    assert.equal((await decide('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dworker-1')).decision, 'Allow');
    assert.deepEqual(await decide('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dworker-2'), { decision: 'NoOpinion', reason: 'can only list/watch pods with spec.nodeName field selector' });
    assert.equal((await decide('GET', '/api/v1/namespaces/default/pods/web')).decision, 'Allow');
    assert.equal((await decide('GET', '/api/v1/namespaces/default/pods/other')).decision, 'NoOpinion');
  });

  it('uses its own Lease only, and falls back to the system:node rules', async () => {
    assert.equal((await decide('PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/worker-1')).decision, 'Allow');
    assert.deepEqual(await decide('PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/worker-2'), { decision: 'NoOpinion', reason: 'can only access node lease with the same name as the requesting node' });
    assert.equal((await decide('POST', '/api/v1/namespaces/default/events')).decision, 'Allow');
    assert.equal((await decide('DELETE', '/api/v1/namespaces/default/services/x')).decision, 'NoOpinion');
    // not a node: no opinion at all
    const jane = { name: 'jane', groups: ['system:authenticated'] };
    assert.deepEqual(await authz.authorize(request('GET', '/api/v1/namespaces/default/secrets/mine', jane)), { decision: 'NoOpinion', reason: '' });
  });
});
