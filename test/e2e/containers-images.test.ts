import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { busyboxLayer, dockerArchive } from '../../src/kubelet/images/busybox-image.js';
import { firstMissing, missingCommand, skipUnless } from '../../src/testing/requirements.js';
import { missingContainerd, stopContainerdServer } from './support/containerd-node.js';
import { firstNodeName, kubectlFor, removeDir, ROOT, run, startServer, waitFor, type ServerProcess } from './harness.js';

const requirements = skipUnless(firstMissing(
  missingContainerd(),
  missingCommand('docker-registry', ['--version'], 'apt install docker-registry'),
  missingCommand('skopeo', ['--version'], 'apt install skopeo'),
  missingCommand('/usr/bin/python3', ['-c', 'import crypt'], 'apt install python3'),
));

interface PodJson {
  metadata: { name: string };
  status: { phase: string; podIP?: string; containerStatuses?: { imageID: string; state: { waiting?: { reason: string; message?: string } } }[] };
}

interface EventJson { reason: string; type: string; message: string; involvedObject: { name: string } }

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** A Debian docker-registry on loopback, optionally behind htpasswd basic auth. */
async function startRegistry(dir: string, auth?: { user: string; password: string }): Promise<{ proc: ChildProcess; host: string }> {
  const port = await freePort();
  mkdirSync(dir, { recursive: true });
  let authBlock = '';
  if (auth) {
    const hash = execFileSync('/usr/bin/python3', ['-c', 'import crypt,sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH)))', auth.password]).toString().trim();
    writeFileSync(join(dir, 'htpasswd'), `${auth.user}:${hash}\n`);
    authBlock = `auth:\n  htpasswd:\n    realm: skiff-test\n    path: ${join(dir, 'htpasswd')}\n`;
  }
  writeFileSync(join(dir, 'config.yml'), `version: 0.1
log: { level: warn }
storage:
  filesystem: { rootdirectory: ${join(dir, 'data')} }
http:
  addr: 127.0.0.1:${port}
${authBlock}`);
  const proc = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
  const host = `127.0.0.1:${port}`;
  await waitFor(`registry on ${host}`, async () => {
    const res = await fetch(`http://${host}/v2/`).catch(() => undefined);
    return res !== undefined && (res.ok || res.status === 401);
  }, 20_000);
  return { proc, host };
}

async function push(archive: string, dest: string, creds?: string): Promise<void> {
  const res = await run('skopeo', ['copy', '--quiet', '--dest-tls-verify=false', ...(creds ? ['--dest-creds', creds] : []), `docker-archive:${archive}`, `docker://${dest}`], { timeoutMs: 60_000 });
  assert.equal(res.code, 0, res.stderr);
}

describe('images: registry pulls, pull policies, pull secrets, mirrors and back-off', requirements, () => {
  let server: ServerProcess;
  let kubectl: ReturnType<typeof kubectlFor>;
  let dir = '';
  let open: { proc: ChildProcess; host: string };
  let priv: { proc: ChildProcess; host: string };

  const pods = async (selector: string[]) => (await kubectl.json<{ items: PodJson[] }>(['get', 'pods', ...selector])).items;
  const pod = (name: string) => kubectl.json<PodJson>(['get', 'pod', name]);
  const events = async (pod: string) => (await kubectl.json<{ items: EventJson[] }>(['get', 'events', '--field-selector', `involvedObject.name=${pod}`])).items;
  const waitingReason = (p: PodJson) => p?.status.containerStatuses?.[0]?.state.waiting;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-images-e2e-'));
    open = await startRegistry(join(dir, 'open'));
    priv = await startRegistry(join(dir, 'private'), { user: 'puller', password: 's3cret' });
    // the test image: the host's static busybox in one layer, pushed to both registries
    const archive = join(dir, 'busybox.tar');
    writeFileSync(archive, dockerArchive(busyboxLayer(), { tags: ['skiff.test/busybox:1'] }));
    await push(archive, `${open.host}/skiff/busybox:1`);
    await push(archive, `${priv.host}/team/busybox:1`, 'puller:s3cret');
    // a registry name that exists only as a mirror of the open registry, and plain HTTP to the private one
    const registries = join(dir, 'registries.yaml');
    writeFileSync(registries, `mirrors:\n  mirror.skiff.test:\n    endpoint: ["http://${open.host}"]\n  "${priv.host}":\n    endpoint: ["http://${priv.host}"]\n`);
    server = await startServer({ args: ['--container-runtime', 'containerd', '--registries', registries], timeoutMs: 60_000 });
    kubectl = kubectlFor(server.kubeconfig);
    await firstNodeName(kubectl);
  });

  after(async () => {
    await stopContainerdServer(server);
    open?.proc.kill();
    priv?.proc.kill();
    if (dir) await removeDir(dir);
  });

  test('a deployment of an image from a loopback registry reaches 3/3 with Pulling/Pulled events; the node lists the image', async () => {
    const image = `${open.host}/skiff/busybox:1`;
    await kubectl.ok(['create', 'deployment', 'web', `--image=${image}`, '--replicas=3', '--', 'sh', '-c', 'echo started; exec httpd -f -p 8080 -h /']);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=120s']);
    const running = await waitFor('3 running pods', async () => {
      const list = (await pods(['-l', 'app=web'])).filter((p) => p.status.phase === 'Running' && p.status.podIP);
      return list.length === 3 ? list : undefined;
    }, 60_000);
    assert.equal(new Set(running.map((p) => p.status.podIP)).size, 3);
    for (const p of running) assert.match(p.status.containerStatuses![0]!.imageID, /sha256:[0-9a-f]{64}/);
    const evs = await waitFor('pull events', async () => {
      const all = (await Promise.all(running.map((p) => events(p.metadata.name)))).flat();
      return all.some((e) => e.reason === 'Pulled') ? all : undefined;
    });
    assert.ok(evs.some((e) => e.reason === 'Pulling' && e.message === `Pulling image "${image}"`), JSON.stringify(evs));
    assert.ok(evs.some((e) => e.reason === 'Pulled' && (e.message.startsWith(`Successfully pulled image "${image}" in `) || e.message === `Container image "${image}" already present on machine`)));
    await waitFor('the node reports the pulled image', async () => {
      const node = (await kubectl.json<{ items: { status: { images?: { names: string[]; sizeBytes: number }[] } }[] }>(['get', 'nodes'])).items[0]!;
      return node.status.images?.some((i) => i.names.includes(image) && i.sizeBytes > 0);
    }, 30_000);
  });

  test('a missing image goes ErrImagePull then ImagePullBackOff, with upstream events', async () => {
    const image = `${open.host}/skiff/missing:1`;
    await kubectl.ok(['run', 'missing', `--image=${image}`, '--', 'sleep', '3600']);
    const first = await waitFor('ErrImagePull', async () => {
      const w = waitingReason(await pod('missing'));
      return w?.reason === 'ErrImagePull' || w?.reason === 'ImagePullBackOff' ? w : undefined;
    }, 60_000);
    if (first.reason === 'ErrImagePull') assert.match(first.message ?? '', /not found/);
    const backoff = await waitFor('ImagePullBackOff', async () => {
      const w = waitingReason(await pod('missing'));
      return w?.reason === 'ImagePullBackOff' ? w : undefined;
    }, 30_000);
    assert.equal(backoff.message, `Back-off pulling image "${image}"`);
    const evs = await waitFor('failure events', async () => {
      const all = await events('missing');
      return all.some((e) => e.reason === 'BackOff') && all.some((e) => e.message === 'Error: ErrImagePull') ? all : undefined;
    }, 30_000);
    assert.ok(evs.some((e) => e.type === 'Warning' && e.reason === 'Failed' && e.message.startsWith(`Failed to pull image "${image}": `)), JSON.stringify(evs));
    assert.ok(evs.some((e) => e.type === 'Normal' && e.reason === 'BackOff' && e.message === `Back-off pulling image "${image}"`));
    assert.match(await kubectl.ok(['get', 'pod', 'missing']), /ErrImagePull|ImagePullBackOff/);
  });

  test('a private registry needs the pod\'s dockerconfigjson pull secret', async () => {
    const image = `${priv.host}/team/busybox:1`;
    // First without the secret, and wait for its failure before any pod pulls the image with the
    // secret: once the image is on the node, IfNotPresent lets every pod use it (as upstream).
    await kubectl.ok(['run', 'nosecret', `--image=${image}`, '--', 'sleep', '3600']);
    const denied = await waitFor('the pod without the secret fails to pull', async () => {
      const w = waitingReason(await pod('nosecret'));
      return w?.reason === 'ErrImagePull' || w?.reason === 'ImagePullBackOff' ? w : undefined;
    }, 90_000);
    assert.ok(denied);
    await waitFor('the 401 pull failure event', async () => (await events('nosecret')).some((e) => e.reason === 'Failed' && /401|nauthorized/.test(e.message)), 30_000);
    await kubectl.ok(['create', 'secret', 'docker-registry', 'regcred', `--docker-server=${priv.host}`, '--docker-username=puller', '--docker-password=s3cret']);
    await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Pod
metadata: { name: withsecret }
spec:
  imagePullSecrets: [{ name: regcred }]
  containers:
  - { name: c, image: "${image}", command: [sleep, "3600"] }
` });
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/withsecret', '--timeout=90s']);
  });

  test('a mirror from the registries file serves a registry name that does not exist', async () => {
    await kubectl.ok(['run', 'mirrored', '--image=mirror.skiff.test/skiff/busybox:1', '--', 'sleep', '3600']);
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/mirrored', '--timeout=60s']);
  });

  test('an imported tarball runs with imagePullPolicy Never; a missing one is ErrImageNeverPull', async () => {
    const archive = join(dir, 'offline.tar');
    writeFileSync(archive, dockerArchive(busyboxLayer(), { tags: ['skiff.test/offline:1'] }));
    const imported = await run(process.execPath, [join(ROOT, 'bin/skiff.js'), 'images', 'import', '--data-dir', server.dataDir, archive]);
    assert.equal(imported.code, 0, imported.stderr);
    await kubectl.ok(['run', 'offline', '--image=skiff.test/offline:1', '--image-pull-policy=Never', '--', 'sleep', '3600']);
    await kubectl.ok(['run', 'never', '--image=skiff.test/absent:1', '--image-pull-policy=Never', '--', 'sleep', '3600']);
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/offline', '--timeout=60s']);
    const w = await waitFor('ErrImageNeverPull', async () => {
      const s = waitingReason(await pod('never'));
      return s?.reason === 'ErrImageNeverPull' ? s : undefined;
    }, 30_000);
    assert.equal(w.message, 'Container image "skiff.test/absent:1" is not present with pull policy of Never');
    const evs = await waitFor('the event', async () => {
      const all = await events('never');
      return all.some((e) => e.reason === 'ErrImageNeverPull') ? all : undefined;
    });
    assert.ok(evs.some((e) => e.type === 'Warning' && e.message === w.message));
  });
});
