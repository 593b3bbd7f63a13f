import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { missingRoot, skipUnless } from '../../src/testing/requirements.js';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

/**
 * Storage with the real kubectl: the built-in local-path provisioner is the
 * default class; a StatefulSet's volumeClaimTemplates get one bound PVC per
 * replica whose data survives the pod; deleting the claims deletes the
 * volumes and their directories; a claim of an unknown class stays Pending.
 */

interface ClaimJson {
  metadata: { name: string; annotations?: Record<string, string>; finalizers?: string[]; deletionTimestamp?: string };
  spec: { volumeName?: string; storageClassName?: string };
  status: { phase: string; capacity?: Record<string, string> };
}
interface VolumeJson {
  metadata: { name: string };
  spec: { hostPath?: { path: string }; claimRef?: { name: string }; capacity?: Record<string, string> };
  status: { phase: string };
}

let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;
const NS = 'storage-e2e';

before(async () => {
  // bind mounts of volumes at their mountPath need the process runtime's mount namespaces (root)
  server = await startServer({ command: 'server', timeoutMs: 90_000 });
  kubectl = kubectlFor(server.kubeconfig);
  await kubectl.ok(['create', 'namespace', NS]);
});

after(async () => {
  await server?.stop();
  if (server) await removeDir(server.dataDir);
});

const claim = (name: string) => kubectl.json<ClaimJson>(['get', 'pvc', name, '-n', NS]);
const volume = (name: string) => kubectl.json<VolumeJson>(['get', 'pv', name]);

test('kubectl get sc shows the built-in local-path class as the default', async () => {
  const out = await waitFor('the local-path class', async () => {
    const r = await kubectl.exec(['get', 'sc']);
    return r.code === 0 && /local-path \(default\)/.test(r.stdout) ? r.stdout : undefined;
  }, 30_000);
  assert.match(out, /NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE/);
  assert.match(out, /local-path \(default\)\s+rancher\.io\/local-path\s+Delete\s+WaitForFirstConsumer\s+true\s+/);
});

test('a claim for a StorageClass that does not exist stays Pending with upstream\'s event', async () => {
  await kubectl.ok(['apply', '-n', NS, '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'lost' },
      spec: { storageClassName: 'no-such-class', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
    }),
  });
  const events = await waitFor('the ProvisioningFailed event', async () => {
    const out = await kubectl.ok(['get', 'events', '-n', NS, '--field-selector', 'involvedObject.name=lost', '-o', 'json']);
    const items = (JSON.parse(out) as { items: { reason: string; message: string; type: string }[] }).items;
    return items.find((e) => e.reason === 'ProvisioningFailed');
  }, 30_000);
  assert.equal(events.type, 'Warning');
  assert.equal(events.message, 'storageclass.storage.k8s.io "no-such-class" not found');
  assert.equal((await claim('lost')).status.phase, 'Pending');
  assert.match(await kubectl.ok(['describe', 'pvc', 'lost', '-n', NS]), /ProvisioningFailed\s+.*storageclass\.storage\.k8s\.io "no-such-class" not found/);
});

test('a StatefulSet with volumeClaimTemplates: one bound local-path volume per replica, data outlives the pod, deleting the claims deletes the volumes', skipUnless(missingRoot()), async () => {
  const manifest = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web' },
    spec: {
      serviceName: 'web',
      replicas: 2,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'while true; do sleep 1; done'], volumeMounts: [{ name: 'www', mountPath: '/www' }] }],
        },
      },
      volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '8Mi' } } } }],
    },
  };
  await kubectl.ok(['apply', '-n', NS, '-f', '-'], { input: JSON.stringify(manifest) });
  for (const ord of [0, 1]) {
    await waitFor(`web-${ord} Running`, async () => {
      const r = await kubectl.exec(['get', 'pod', `web-${ord}`, '-n', NS, '-o', 'jsonpath={.status.phase}']);
      return r.stdout === 'Running';
    }, 90_000);
  }
  const volumes: string[] = [];
  for (const ord of [0, 1]) {
    const c = await claim(`www-web-${ord}`);
    assert.equal(c.status.phase, 'Bound');
    assert.equal(c.spec.storageClassName, 'local-path', 'the default class was filled in');
    assert.equal(c.metadata.annotations?.['pv.kubernetes.io/bind-completed'], 'yes');
    assert.ok(c.metadata.annotations?.['volume.kubernetes.io/selected-node'], 'the scheduler chose the node');
    const pv = await volume(c.spec.volumeName!);
    assert.equal(pv.status.phase, 'Bound');
    assert.equal(pv.spec.claimRef?.name, `www-web-${ord}`);
    assert.equal(pv.spec.hostPath?.path, join(server.dataDir, 'storage', `${pv.metadata.name}_${NS}_www-web-${ord}`));
    volumes.push(pv.metadata.name);
  }
  const wide = await kubectl.ok(['get', 'pvc', '-n', NS]);
  assert.match(wide, /www-web-0\s+Bound\s+pvc-\S+\s+8Mi\s+RWO\s+local-path\s/);

  // web-0 writes into its volume; the file is in the volume's directory on the node
  await kubectl.ok(['exec', '-n', NS, 'web-0', '--', 'sh', '-c', 'echo kept-by-web-0 > /www/data.txt']);
  const dir0 = (await volume(volumes[0])).spec.hostPath!.path;
  assert.equal(readFileSync(join(dir0, 'data.txt'), 'utf8'), 'kept-by-web-0\n');

  const uid = (await kubectl.ok(['get', 'pod', 'web-0', '-n', NS, '-o', 'jsonpath={.metadata.uid}'])).trim();
  await kubectl.ok(['delete', 'pod', 'web-0', '-n', NS, '--wait=false']);
  await waitFor('web-0 re-created and Running', async () => {
    const r = await kubectl.exec(['get', 'pod', 'web-0', '-n', NS, '-o', 'jsonpath={.metadata.uid} {.status.phase}']);
    const [u, phase] = r.stdout.split(' ');
    return r.code === 0 && u !== uid && phase === 'Running';
  }, 90_000);
  assert.equal((await kubectl.ok(['exec', '-n', NS, 'web-0', '--', 'cat', '/www/data.txt'])).trim(), 'kept-by-web-0');
  assert.equal((await claim('www-web-0')).spec.volumeName, volumes[0], 'the re-created pod got the same claim and volume');

  // expansion: the class allows it, so a bigger request grows the volume and the claim's capacity
  await kubectl.ok(['patch', 'pvc', 'www-web-0', '-n', NS, '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"16Mi"}}}}']);
  await waitFor('the claim grown', async () => (await claim('www-web-0')).status.capacity?.storage === '16Mi', 30_000);
  assert.equal((await volume(volumes[0])).spec.capacity?.storage, '16Mi');

  // volumes do not shrink: validation refuses a request at or below the claim's capacity
  const shrink = await kubectl.exec(['patch', 'pvc', 'www-web-0', '-n', NS, '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"8Mi"}}}}']);
  assert.notEqual(shrink.code, 0);
  assert.match(shrink.stderr, /spec\.resources\.requests\.storage: Forbidden: field can not be less than status\.capacity/);

  // protection: a claim deleted while web-1 uses it is only marked (Terminating, finalizer kept) ...
  const protectedClaim = await claim('www-web-1');
  assert.deepEqual(protectedClaim.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  await kubectl.ok(['delete', 'pvc', 'www-web-1', '-n', NS, '--wait=false']);
  assert.ok((await claim('www-web-1')).metadata.deletionTimestamp);
  assert.match(await kubectl.ok(['get', 'pvc', 'www-web-1', '-n', NS]), /www-web-1\s+Terminating\s/);

  // ... until its pod is gone. The claims outlive the StatefulSet (whenDeleted: Retain); deleting them releases and deletes the volumes and their directories
  await kubectl.ok(['delete', 'statefulset', 'web', '-n', NS, '--wait=true', '--timeout=60s']);
  await waitFor('web pods gone', async () => (await kubectl.ok(['get', 'pods', '-n', NS, '-l', 'app=web', '-o', 'name'])).trim() === '', 60_000);
  await waitFor('www-web-1 gone once no pod uses it', async () => (await kubectl.exec(['get', 'pvc', 'www-web-1', '-n', NS])).code !== 0, 30_000);
  await kubectl.ok(['delete', 'pvc', 'www-web-0', '-n', NS]);
  for (const name of volumes) {
    await waitFor(`volume ${name} deleted`, async () => (await kubectl.exec(['get', 'pv', name])).code !== 0, 90_000);
  }
  assert.equal(existsSync(dir0), false, 'the volume directory was removed on the node');
});

test('bad input: a class with parameters the provisioner does not know, a claim bigger than the node: ProvisioningFailed events, claims Pending', async () => {
  const eventFor = (name: string) =>
    waitFor(`the ProvisioningFailed event of ${name}`, async () => {
      const out = await kubectl.ok(['get', 'events', '-n', NS, '--field-selector', `involvedObject.name=${name}`, '-o', 'json']);
      return (JSON.parse(out) as { items: { reason: string; message: string; type: string }[] }).items.find((e) => e.reason === 'ProvisioningFailed');
    }, 30_000);
  const pvc = (name: string, storageClassName: string, storage: string) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { storageClassName, accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
  });
  await kubectl.ok(['apply', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'odd-params' }, provisioner: 'rancher.io/local-path', volumeBindingMode: 'Immediate', parameters: { fsType: 'ext4' } }),
  });
  await kubectl.ok(['apply', '-n', NS, '-f', '-'], { input: JSON.stringify(pvc('odd', 'odd-params', '1Mi')) });
  const odd = await eventFor('odd');
  assert.equal(odd.type, 'Warning');
  assert.equal(odd.message, 'failed to provision volume with StorageClass "odd-params": unsupported parameter "fsType": the built-in local-path provisioner takes no parameters');

  // late binding: the scheduler picks the node for the claim's pod, then the provisioner finds the disk too small
  await kubectl.ok(['apply', '-n', NS, '-f', '-'], { input: JSON.stringify(pvc('huge', 'local-path', '1Ei')) });
  await kubectl.ok(['apply', '-n', NS, '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'wants-huge' },
      spec: { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'], volumeMounts: [{ name: 'd', mountPath: '/d' }] }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'huge' } }] },
    }),
  });
  const huge = await eventFor('huge');
  assert.match(huge.message, /^failed to provision volume with StorageClass "local-path": requested storage 1Ei is more than node "[^"]+" has \(ephemeral-storage capacity \d+Ki\)$/);
  assert.equal((await claim('odd')).status.phase, 'Pending');
  assert.equal((await claim('huge')).status.phase, 'Pending');
  await kubectl.ok(['delete', 'pod', 'wants-huge', '-n', NS, '--wait=false']);
});
