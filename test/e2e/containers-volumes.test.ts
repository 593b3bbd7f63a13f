import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { busyboxLayer, dockerArchive } from '../../src/kubelet/images/busybox-image.js';
import { skipUnless } from '../../src/testing/requirements.js';
import { missingContainerd, stopContainerdServer } from './support/containerd-node.js';
import { firstNodeName, kubectlFor, run, startServer, waitFor, type ServerProcess } from './harness.js';

const ROOT = join(import.meta.dirname, '..', '..');
const IMAGE = 'skiff.test/busybox:1';

/**
 * Volumes the runtime mounts on containerd: a memory-backed emptyDir is a
 * tmpfs of its sizeLimit (writing past it fails), `subPathExpr` picks a
 * per-pod directory of a shared volume, and a local-path PVC holds what the
 * container writes in the volume's directory on the node.
 */
describe('volumes on containerd: emptyDir medium Memory with sizeLimit, subPathExpr, a local-path PVC', skipUnless(missingContainerd()), () => {
  let server: ServerProcess;
  let kubectl: ReturnType<typeof kubectlFor>;

  before(async () => {
    server = await startServer({ args: ['--container-runtime', 'containerd'], timeoutMs: 60_000 });
    kubectl = kubectlFor(server.kubeconfig);
    await firstNodeName(kubectl);
    const archive = join(server.dataDir, 'busybox.tar');
    writeFileSync(archive, dockerArchive(busyboxLayer(), { tags: [IMAGE] }));
    const imported = await run(process.execPath, [join(ROOT, 'bin/skiff.js'), 'images', 'import', '--data-dir', server.dataDir, archive]);
    assert.equal(imported.code, 0, imported.stderr);
    await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data }
spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 8Mi } } }
---
apiVersion: v1
kind: Pod
metadata: { name: vols }
spec:
  terminationGracePeriodSeconds: 1
  volumes:
  - { name: mem, emptyDir: { medium: Memory, sizeLimit: 4Mi } }
  - { name: shared, emptyDir: {} }
  - { name: data, persistentVolumeClaim: { claimName: data } }
  containers:
  - name: c
    image: ${IMAGE}
    imagePullPolicy: Never
    command: [sleep, "3600"]
    env: [{ name: POD_NAME, valueFrom: { fieldRef: { fieldPath: metadata.name } } }]
    volumeMounts:
    - { name: mem, mountPath: /mem }
    - { name: shared, mountPath: /mine, subPathExpr: 'pods/$(POD_NAME)' }
    - { name: shared, mountPath: /all }
    - { name: data, mountPath: /data }
` });
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/vols', '--timeout=90s']);
  });

  after(() => stopContainerdServer(server));

  const sh = async (script: string) => kubectl.exec(['exec', 'vols', '--', 'sh', '-c', script]);

  test('a medium: Memory emptyDir is a tmpfs of its sizeLimit: writing past it fails with no space left', async () => {
    const mounts = (await sh('cat /proc/mounts')).stdout;
    assert.match(mounts, /^tmpfs \/mem tmpfs \S*size=4096k/m);
    const fits = await sh('dd if=/dev/zero of=/mem/a bs=1024 count=2048 2>&1');
    assert.equal(fits.code, 0, fits.stdout);
    const over = await sh('dd if=/dev/zero of=/mem/b bs=1024 count=4096 2>&1');
    assert.notEqual(over.code, 0);
    assert.match(over.stdout, /No space left on device/);
  });

  test('subPathExpr mounts the pod\'s own directory of a shared volume', async () => {
    const w = await sh('echo from-vols > /mine/hello && ls /all/pods && cat /all/pods/vols/hello');
    assert.equal(w.code, 0, w.stderr);
    assert.deepEqual(w.stdout.trim().split('\n'), ['vols', 'from-vols']);
  });

  test('a local-path PVC is mounted: what the container writes is in the volume\'s directory on the node', async () => {
    const w = await sh('echo kept > /data/file.txt');
    assert.equal(w.code, 0, w.stderr);
    const pvName = await waitFor('the claim bound', async () => {
      const r = await kubectl.exec(['get', 'pvc', 'data', '-o', 'jsonpath={.spec.volumeName}']);
      return r.stdout.trim() || undefined;
    }, 30_000);
    const pv = await kubectl.json<{ spec: { hostPath?: { path: string }; local?: { path: string } } }>(['get', 'pv', pvName]);
    const dir = pv.spec.hostPath?.path ?? pv.spec.local?.path ?? '';
    assert.equal(readFileSync(join(dir, 'file.txt'), 'utf8'), 'kept\n');
  });

  test('deleting the pod unmounts its tmpfs', async () => {
    const uid = (await kubectl.json<{ metadata: { uid: string } }>(['get', 'pod', 'vols'])).metadata.uid;
    const tmpfs = join(server.dataDir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~empty-dir', 'mem');
    assert.ok(readFileSync('/proc/self/mounts', 'utf8').includes(` ${tmpfs} tmpfs `), `the tmpfs is mounted at ${tmpfs}`);
    await kubectl.ok(['delete', 'pod', 'vols', '--grace-period=1', '--timeout=90s']);
    await waitFor('the tmpfs unmounted and removed', async () => !readFileSync('/proc/self/mounts', 'utf8').includes(` ${tmpfs} `) && !existsSync(tmpfs), 30_000);
  });
});
