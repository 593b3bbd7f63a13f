import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

interface PodJson {
  metadata: { name: string; uid: string; annotations?: Record<string, string>; ownerReferences?: { kind: string; name: string }[] };
  status: { phase?: string };
}

let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;
let nodeName: string;
let manifests: string;

before(async () => {
  server = await startServer({ command: 'server' });
  kubectl = kubectlFor(server.kubeconfig);
  nodeName = await waitFor('the node to register', async () => (await kubectl.ok(['get', 'nodes', '-o', 'name'])).trim().split('\n')[0]?.replace('node/', ''));
  // skiff server's kubelet reads <data-dir>/kubelet/manifests
  manifests = join(server.dataDir, 'kubelet', 'manifests');
  mkdirSync(manifests, { recursive: true });
});

after(async () => {
  await server?.stop();
  if (server) await removeDir(server.dataDir);
});

const manifest = (message: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: static-web\n  namespace: kube-system\nspec:\n  containers:\n  - name: web\n    image: busybox\n    command: ["sh", "-c", "echo ${message}; sleep 3600"]\n`;

async function mirror(): Promise<PodJson | undefined> {
  const r = await kubectl.exec(['get', 'pod', '-n', 'kube-system', `static-web-${nodeName}`, '-o', 'json']);
  return r.code === 0 ? (JSON.parse(r.stdout) as PodJson) : undefined;
}

test('a manifest file runs as a static pod with a mirror pod; edits replace it, deletes recreate the mirror, removal ends it', async () => {
  writeFileSync(join(manifests, 'static-web.yaml'), manifest('version one'));
  const first = await waitFor('the mirror pod to run', async () => {
    const p = await mirror();
    return p?.status.phase === 'Running' ? p : undefined;
  });
  assert.equal(first.metadata.annotations?.['kubernetes.io/config.source'], 'file');
  assert.ok(first.metadata.annotations?.['kubernetes.io/config.mirror']);
  assert.deepEqual(first.metadata.ownerReferences?.map((o) => `${o.kind}/${o.name}`), [`Node/${nodeName}`]);
  assert.match(await kubectl.ok(['get', 'pods', '-A']), new RegExp(`kube-system\\s+static-web-${nodeName}\\s+1/1\\s+Running`));
  await waitFor('its logs', async () => (await kubectl.ok(['logs', '-n', 'kube-system', `static-web-${nodeName}`])) === 'version one\n');

  // deleting the mirror does not stop the static pod: the kubelet puts the mirror back
  await kubectl.ok(['delete', 'pod', '-n', 'kube-system', `static-web-${nodeName}`, '--wait=false']);
  const again = await waitFor('a new mirror pod', async () => {
    const p = await mirror();
    return p && p.metadata.uid !== first.metadata.uid && p.status.phase === 'Running' ? p : undefined;
  });
  assert.equal(again.metadata.annotations?.['kubernetes.io/config.mirror'], first.metadata.annotations?.['kubernetes.io/config.mirror']);
  assert.equal(await kubectl.ok(['logs', '-n', 'kube-system', `static-web-${nodeName}`]), 'version one\n');

  // an edited manifest is a new pod
  writeFileSync(join(manifests, 'static-web.yaml'), manifest('version two'));
  await waitFor('the edited static pod', async () => {
    const p = await mirror();
    if (p?.metadata.annotations?.['kubernetes.io/config.mirror'] === first.metadata.annotations?.['kubernetes.io/config.mirror']) return undefined;
    return (await kubectl.exec(['logs', '-n', 'kube-system', `static-web-${nodeName}`])).stdout === 'version two\n';
  });

  rmSync(join(manifests, 'static-web.yaml'));
  await waitFor('the mirror pod to go', async () => (await mirror()) === undefined);
});
