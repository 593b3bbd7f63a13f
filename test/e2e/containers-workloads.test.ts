import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { busyboxLayer, dockerArchive } from '../../src/kubelet/images/busybox-image.js';
import { firstMissing, missingCommand, skipUnless } from '../../src/testing/requirements.js';
import { missingContainerd, stopContainerdServer } from './support/containerd-node.js';
import { kubectlFor, ROOT, run, startServer, waitFor, type ServerProcess } from './harness.js';

const IMAGE = 'skiff.test/busybox:1';

const requirements = skipUnless(firstMissing(
  missingContainerd(),
  missingCommand('script', ['--version'], 'apt install bsdutils'),
));

interface PodJson {
  metadata: { name: string; uid: string };
  status: { phase: string; podIP?: string; containerStatuses?: { name: string; restartCount: number; ready: boolean }[] };
}

/** An HTTP/1.0 GET through busybox nc inside a pod (static busybox's wget cannot resolve, nc needs no resolver). */
const ncGet = (ip: string, port: number, path = '/index.html') => ['sh', '-c', `printf 'GET ${path} HTTP/1.0\\r\\n\\r\\n' | nc ${ip} ${port}`];

describe('workloads on containerd: pod-to-pod traffic, logs with rotation and --previous, exec -it, attach, port-forward, cp', requirements, () => {
  let server: ServerProcess;
  let kubectl: ReturnType<typeof kubectlFor>;
  let web: PodJson[] = [];

  before(async () => {
    // tiny log files, so the kubelet rotates within the test
    server = await startServer({ args: ['--container-runtime', 'containerd', '--container-log-max-size', '2Ki', '--container-log-max-files', '3'], timeoutMs: 120_000 });
    kubectl = kubectlFor(server.kubeconfig);
    await waitFor('the node to register', async () => (await kubectl.json<{ items: unknown[] }>(['get', 'nodes'])).items.length > 0, 60_000);
    const archive = join(server.dataDir, 'busybox.tar');
    writeFileSync(archive, dockerArchive(busyboxLayer(), { tags: [IMAGE] }));
    const imported = await run(process.execPath, [join(ROOT, 'bin/skiff.js'), 'images', 'import', '--data-dir', server.dataDir, archive]);
    assert.equal(imported.code, 0, imported.stderr);
    // each pod serves its name on its IP (8080) and, only on its own loopback, on 9090
    await kubectl.ok(['create', 'deployment', 'web', `--image=${IMAGE}`, '--replicas=3', '--',
      'sh', '-c', 'mkdir /www; hostname > /www/index.html; httpd -p 127.0.0.1:9090 -h /www; echo started; exec httpd -f -p 8080 -h /www']);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=120s']);
    web = await waitFor('3 running web pods with IPs', async () => {
      const list = (await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web'])).items.filter((p) => p.status.phase === 'Running' && p.status.podIP);
      return list.length === 3 ? list : undefined;
    }, 60_000);
  });

  after(() => stopContainerdServer(server));

  test('every pod reaches every other pod on its IP', async () => {
    for (const from of web) {
      for (const to of web.filter((p) => p !== from)) {
        const out = await waitFor(`${from.metadata.name} reaches ${to.metadata.name}`, async () => {
          const r = await kubectl.exec(['exec', from.metadata.name, '--', ...ncGet(to.status.podIP!, 8080)]);
          return r.code === 0 && r.stdout.includes('200 OK') ? r.stdout : undefined;
        }, 20_000);
        assert.equal(out.split('\r\n\r\n')[1]?.trim(), to.metadata.name);
      }
    }
    // the loopback-only server is not on the pod IP
    const r = await kubectl.exec(['exec', web[0]!.metadata.name, '--', ...ncGet(web[1]!.status.podIP!, 9090)]);
    assert.doesNotMatch(r.stdout, /200 OK/);
  });

  test('kubectl port-forward reaches a server bound to the pod\'s own 127.0.0.1', async () => {
    const name = web[0]!.metadata.name;
    const pf = spawn(kubectl.bin, ['--kubeconfig', server.kubeconfig, 'port-forward', `pod/${name}`, ':9090'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    pf.stdout.on('data', (d: Buffer) => (out += d.toString()));
    pf.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const local = await waitFor('port-forward to listen', () => Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(out)?.[1]) || undefined, 15_000);
      for (let i = 0; i < 2; i++) assert.equal((await (await fetch(`http://127.0.0.1:${local}/index.html`)).text()).trim(), name);
      assert.doesNotMatch(out, /error/i);
    } finally {
      pf.kill('SIGINT');
    }
  });

  test('kubectl exec -it gets a terminal of the client\'s size; attach -i feeds a container\'s stdin', async () => {
    const name = web[0]!.metadata.name;
    // containerd applies the client's first size just after the process starts: the shell waits for it (with a deadline)
    const script = 'tty; for i in $(seq 50); do s=$(stty size 2>/dev/null); case "$s" in [1-9]*" "[1-9]*) break;; esac; sleep 0.1; done; echo "size $s"; exit 5';
    const cmd = `stty cols 97 rows 29; ${kubectl.bin} --kubeconfig ${server.kubeconfig} exec -it ${name} -- sh -c '${script}'`;
    const r = await run('script', ['-q', '-e', '-c', cmd, '/dev/null'], { timeoutMs: 30_000 });
    assert.equal(r.code, 5, r.stdout + r.stderr);
    assert.match(r.stdout, /\/dev\/pts\/\d+/);
    assert.match(r.stdout, /size 29 97/);

    await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Pod
metadata: { name: reader }
spec:
  restartPolicy: Never
  containers:
  - { name: c, image: ${IMAGE}, stdin: true, stdinOnce: true, command: [sh, -c, 'while read l; do echo got $l; done; echo stdin closed'] }
` });
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/reader', '--timeout=60s']);
    const attached = await kubectl.exec(['attach', '-i', 'reader'], { input: 'hello\nworld\n' });
    assert.match(attached.stdout, /got hello\ngot world\n/, attached.stderr);
    await waitFor('the reader to finish once its stdin closed', async () => (await kubectl.json<PodJson>(['get', 'pod', 'reader'])).status.phase === 'Succeeded', 30_000);
    assert.equal(await kubectl.ok(['logs', 'reader']), 'got hello\ngot world\nstdin closed\n');
  });

  test('kubectl cp copies into and out of the container\'s own filesystem', async () => {
    const name = web[1]!.metadata.name;
    const marker = `skiff-cp-${randomBytes(4).toString('hex')}`;
    const local = join(server.dataDir, `${marker}.bin`);
    const data = randomBytes(200_000);
    writeFileSync(local, data);
    await kubectl.ok(['cp', local, `${name}:/tmp/${marker}.bin`]);
    // it landed in the container, not in the host's /tmp
    assert.ok(!existsSync(`/tmp/${marker}.bin`));
    const sum = (await kubectl.ok(['exec', name, '--', 'md5sum', `/tmp/${marker}.bin`])).split(' ')[0];
    assert.equal(sum, execFileSync('md5sum', [local]).toString().split(' ')[0]);
    const back = join(server.dataDir, `${marker}.back`);
    await kubectl.ok(['cp', `${name}:/tmp/${marker}.bin`, back]);
    assert.deepEqual(readFileSync(back), data);
  });

  test('kubectl logs reads across rotated files: --tail, --limit-bytes, --timestamps, --since-time, -f', async () => {
    await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Pod
metadata: { name: logger }
spec:
  containers:
  - { name: c, image: ${IMAGE}, command: [sh, -c, 'i=0; while [ $i -lt 100 ]; do i=$((i+1)); echo "line $i of the rotation test"; done; exec sleep 3600'] }
` });
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/logger', '--timeout=60s']);
    const uid = (await kubectl.json<PodJson>(['get', 'pod', 'logger'])).metadata.uid;
    const dir = join(server.dataDir, 'kubelet', 'pod-logs', `default_logger_${uid}`, 'c');
    // the rotator looks every 10 s: 100 lines are over 2Ki
    await waitFor('the log to be rotated', () => existsSync(dir) && readdirSync(dir).some((n) => /^0\.log\.\d{8}-\d{6}$/.test(n)), 40_000);
    // PID 1's stdout is the container's log stream: what it gets now goes to the reopened file
    await kubectl.ok(['exec', 'logger', '--', 'sh', '-c', 'echo after rotation > /proc/1/fd/1']);
    await waitFor('the reopened file to get the new line', () => readFileSync(join(dir, '0.log'), 'utf8').includes('after rotation'), 20_000);
    const expected = `${Array.from({ length: 100 }, (_, i) => `line ${i + 1} of the rotation test\n`).join('')}after rotation\n`;
    assert.equal(await kubectl.ok(['logs', 'logger']), expected);
    assert.equal(await kubectl.ok(['logs', 'logger', '--tail=2']), 'line 100 of the rotation test\nafter rotation\n');
    assert.equal(await kubectl.ok(['logs', 'logger', '--limit-bytes=7']), 'line 1 ');
    assert.match(await kubectl.ok(['logs', 'logger', '--tail=1', '--timestamps']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z after rotation\n$/);
    assert.equal(await kubectl.ok(['logs', 'logger', `--since-time=${new Date(Date.now() + 3_600_000).toISOString()}`]), '');
    assert.equal(await kubectl.ok(['logs', 'logger', '--since=1h']), expected);

    const follow = spawn(kubectl.bin, ['--kubeconfig', server.kubeconfig, 'logs', '-f', '--tail=1', 'logger'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let followed = '';
    follow.stdout.on('data', (d: Buffer) => (followed += d.toString()));
    try {
      await waitFor('the followed tail', () => followed === 'after rotation\n', 20_000);
      await kubectl.ok(['exec', 'logger', '--', 'sh', '-c', 'echo while following > /proc/1/fd/1']);
      await waitFor('the live line', () => followed === 'after rotation\nwhile following\n', 20_000);
    } finally {
      follow.kill('SIGINT');
    }
  });

  test('kubectl logs --previous shows the last restart\'s file; -c and --all-containers pick containers', async () => {
    // the first attempt counts itself in an emptyDir and exits, the second stays up
    await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Pod
metadata: { name: restarter }
spec:
  volumes: [{ name: state, emptyDir: {} }]
  containers:
  - name: main
    image: ${IMAGE}
    volumeMounts: [{ name: state, mountPath: /state }]
    command: [sh, -c, 'n=$(( $(cat /state/n 2>/dev/null || echo 0) + 1 )); echo $n > /state/n; echo attempt $n; [ $n -gt 1 ] || exit 1; exec sleep 3600']
  - { name: side, image: ${IMAGE}, command: [sh, -c, 'echo side car; exec sleep 3600'] }
` });
    await waitFor('main restarted once and running', async () => {
      const s = (await kubectl.json<PodJson>(['get', 'pod', 'restarter'])).status.containerStatuses?.find((c) => c.name === 'main');
      return s?.restartCount === 1 && s.ready;
    }, 90_000);
    assert.equal(await kubectl.ok(['logs', 'restarter', '-c', 'main', '--previous']), 'attempt 1\n');
    assert.equal(await kubectl.ok(['logs', 'restarter', '-c', 'main']), 'attempt 2\n');
    assert.equal(await kubectl.ok(['logs', 'restarter', '-c', 'side']), 'side car\n');
    const all = await kubectl.ok(['logs', 'restarter', '--all-containers', '--prefix']);
    assert.match(all, /^\[pod\/restarter\/main\] attempt 2$/m);
    assert.match(all, /^\[pod\/restarter\/side\] side car$/m);
    assert.match(await kubectl.fails(['logs', 'restarter', '-c', 'side', '--previous']), /previous terminated container "side" in pod "restarter" not found/);
  });
});
