import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestApiServer, type TestApiServer } from 'skiff/testing';
import { GROUP, PLURAL, VERSION, type WebApp } from './crd.js';
import { WebAppOperator } from './operator.js';

// The sample operator against skiff/testing's in-process API server: no
// controllers run there, so the test plays the Deployment controller's part
// by writing the Deployment's status, and checks the operator carries it
// over to the WebApp's status.

let api: TestApiServer;
let kc: k8s.KubeConfig;
let stop: AbortController;
let running: Promise<void>;

before(async () => {
  api = await startTestApiServer();
  kc = new k8s.KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  stop = new AbortController();
  running = new WebAppOperator({ kubeConfig: kc, signal: stop.signal }).run();
});

after(async () => {
  stop.abort();
  await running;
  await api.stop();
});

async function eventually<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a WebApp becomes an owned Deployment, and the Deployment status comes back to the WebApp', async () => {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const extensions = kc.makeApiClient(k8s.ApiextensionsV1Api);
  await eventually('the operator to install its CRD', async () => {
    const crd = await extensions.readCustomResourceDefinition({ name: `${PLURAL}.${GROUP}` });
    return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? crd : undefined;
  });

  const created = (await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: 'default',
    plural: PLURAL,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'WebApp', metadata: { name: 'shop' }, spec: { image: 'nginx:1.27', replicas: 2 } },
  })) as WebApp;
  // status is the operator's: a create cannot set it
  assert.equal(created.status, undefined);

  const deployment = await eventually('the Deployment', () => apps.readNamespacedDeployment({ name: 'shop', namespace: 'default' }).catch(() => undefined));
  assert.equal(deployment.spec?.replicas, 2);
  assert.equal(deployment.spec?.template.spec?.containers[0].image, 'nginx:1.27');
  const owner = deployment.metadata?.ownerReferences?.[0];
  assert.deepEqual([owner?.kind, owner?.name, owner?.uid, owner?.controller], ['WebApp', 'shop', created.metadata.uid, true]);

  // the Deployment controller's part: the Deployment reports its replicas
  deployment.status = { replicas: 2, readyReplicas: 1 };
  await apps.replaceNamespacedDeploymentStatus({ name: 'shop', namespace: 'default', body: deployment });
  const reported = await eventually('the WebApp status', async () => {
    const app = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'default', plural: PLURAL, name: 'shop' })) as WebApp;
    return app.status?.readyReplicas === 1 ? app : undefined;
  });
  assert.deepEqual(reported.status, { replicas: 2, readyReplicas: 1, observedGeneration: 1 });

  // a spec change reaches the Deployment (level-triggered: the operator reads the WebApp afresh)
  await custom.replaceNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'default', plural: PLURAL, name: 'shop', body: { ...reported, spec: { image: 'nginx:1.28', replicas: 3 } } });
  const updated = await eventually('the Deployment to follow', async () => {
    const d = await apps.readNamespacedDeployment({ name: 'shop', namespace: 'default' });
    return d.spec?.replicas === 3 ? d : undefined;
  });
  assert.equal(updated.spec?.template.spec?.containers[0].image, 'nginx:1.28');
  const observed = await eventually('observedGeneration 2', async () => {
    const app = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'default', plural: PLURAL, name: 'shop' })) as WebApp;
    return app.status?.observedGeneration === 2 ? app : undefined;
  });
  assert.equal(observed.spec.replicas, 3);
});

test('the schema refuses a WebApp without an image and defaults replicas', async () => {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  await assert.rejects(
    custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'default', plural: PLURAL, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'WebApp', metadata: { name: 'bad' }, spec: {} } }),
    (err: { code?: number; body?: string }) => err.code === 422 && /spec.image: Required value/.test(String(err.body)),
  );
  const defaulted = (await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: 'default',
    plural: PLURAL,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'WebApp', metadata: { name: 'one' }, spec: { image: 'nginx' } },
  })) as WebApp;
  assert.equal(defaulted.spec.replicas, 1);
});
