import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { missingRoot, skipUnless } from '../../../testing/requirements.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runtimeConformance } from '../conformance.js';
import { ProcessRuntime } from './process-runtime.js';
import { parseCriLogLine } from '../../logs/cri-log-format.js';
import { RuntimeError } from '../runtime.js';

runtimeConformance('ProcessRuntime', () => new ProcessRuntime({ hostIP: '127.0.0.1' }), (rt) => (rt as ProcessRuntime).close());

async function exitedStatus(rt: ProcessRuntime, id: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = await rt.containerStatus(id);
    if (s.state === 'Exited') return s;
    if (Date.now() > deadline) throw new Error('container did not exit');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function logContains(path: string, text: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await readFile(path, 'utf8').catch(() => '')).includes(text)) {
    if (Date.now() > deadline) throw new Error(`${path} never contained ${text}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('ProcessRuntime: output lands in a CRI log; env, workingDir and mounts are applied', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-prt-'));
  const rt = new ProcessRuntime();
  try {
    const vol = join(dir, 'vol');
    await import('node:fs/promises').then((fs) => fs.mkdir(vol));
    await writeFile(join(vol, 'key'), 'from-volume');
    const sb = await rt.runPodSandbox({ uid: 'u1', name: 'p', namespace: 'default', hostname: 'p', logDirectory: dir });
    const mountPath = join(dir, 'mnt', 'config');
    const id = await rt.createContainer(sb.id, {
      name: 'c', attempt: 0, image: 'busybox', logPath: join(dir, 'c.log'), env: { GREETING: 'hello' }, workingDir: dir,
      mounts: [{ containerPath: mountPath, hostPath: vol, readOnly: true }],
      argv: ['sh', '-c', `echo $GREETING; pwd; echo oops >&2; ${rt.isolate ? `cat ${mountPath}/key` : 'echo from-volume'}`],
    });
    await rt.startContainer(id);
    const s = await exitedStatus(rt, id);
    assert.equal(s.exitCode, 0);
    const lines = (await readFile(join(dir, 'c.log'), 'utf8')).trim().split('\n').map((l) => parseCriLogLine(l)!);
    assert.deepEqual(lines.filter((l) => l.stream === 'stdout').map((l) => l.text), ['hello', dir, 'from-volume']);
    assert.deepEqual(lines.filter((l) => l.stream === 'stderr').map((l) => l.text), ['oops']);
    assert.ok(lines.every((l) => !Number.isNaN(l.time.getTime())));
  } finally {
    await rt.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('ProcessRuntime: a tty container runs on a terminal of its own, with TERM, and keeps its exit code', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-prt-'));
  const rt = new ProcessRuntime();
  try {
    const sb = await rt.runPodSandbox({ uid: 'u1', name: 'p', namespace: 'default', hostname: 'p', logDirectory: dir });
    const id = await rt.createContainer(sb.id, {
      name: 'c', attempt: 0, image: 'busybox', logPath: join(dir, 'c.log'), env: {}, mounts: [], tty: true,
      argv: ['sh', '-c', 'tty; echo $TERM; echo to-stderr >&2; exit 4'],
    });
    await rt.startContainer(id);
    const s = await exitedStatus(rt, id);
    assert.equal(s.exitCode, 4);
    const lines = (await readFile(join(dir, 'c.log'), 'utf8')).trim().split('\n').map((l) => parseCriLogLine(l)!);
    // on a terminal, stderr is the terminal too: every line arrives on stdout
    assert.deepEqual(lines.map((l) => l.stream), ['stdout', 'stdout', 'stdout']);
    assert.match(lines[0].text, /^\/dev\/pts\/\d+\r?$/);
    assert.deepEqual(lines.slice(1).map((l) => l.text.replace(/\r$/, '')), ['xterm', 'to-stderr']);
  } finally {
    await rt.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('ProcessRuntime: a missing executable is a CreateContainerError with the execvp message', async () => {
  const rt = new ProcessRuntime();
  const sb = await rt.runPodSandbox({ uid: 'u2', name: 'p', namespace: 'default', hostname: 'p', logDirectory: tmpdir() });
  await assert.rejects(
    rt.createContainer(sb.id, { name: 'c', attempt: 0, image: 'x', argv: ['no-such-binary-xyz'], env: {}, mounts: [], logPath: '/dev/null' }),
    (err: unknown) => err instanceof RuntimeError && err.reason === 'CreateContainerError' && /executable file not found/.test(err.message),
  );
  await rt.close();
});

test('ProcessRuntime: SIGTERM-ignoring containers are killed after the grace period; trapped SIGTERM exits gracefully', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-prt-'));
  const rt = new ProcessRuntime();
  try {
    const sb = await rt.runPodSandbox({ uid: 'u3', name: 'p', namespace: 'default', hostname: 'p', logDirectory: dir });
    const graceful = await rt.createContainer(sb.id, { name: 'g', attempt: 0, image: 'x', env: {}, mounts: [], logPath: join(dir, 'g.log'), argv: ['sh', '-c', 'trap "echo bye; exit 0" TERM; echo ready; while true; do sleep 0.05; done'] });
    const stubborn = await rt.createContainer(sb.id, { name: 's', attempt: 0, image: 'x', env: {}, mounts: [], logPath: join(dir, 's.log'), argv: ['sh', '-c', 'trap "" TERM; echo ready; while true; do sleep 0.05; done'] });
    await rt.startContainer(graceful);
    await rt.startContainer(stubborn);
    // signal only once both shells have installed their traps
    for (const f of ['g.log', 's.log']) await logContains(join(dir, f), 'ready');
    await rt.stopContainer(graceful, 5);
    assert.equal((await rt.containerStatus(graceful)).exitCode, 0);
    const t0 = Date.now();
    await rt.stopContainer(stubborn, 1);
    assert.ok(Date.now() - t0 >= 900, 'waited for the grace period');
    assert.equal((await rt.containerStatus(stubborn)).exitCode, 137);
  } finally {
    await rt.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('ProcessRuntime: a container over its memory limit is OOMKilled', skipUnless(missingRoot()), async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-prt-'));
  const rt = new ProcessRuntime();
  try {
    const sb = await rt.runPodSandbox({ uid: 'u4', name: 'p', namespace: 'default', hostname: 'p', logDirectory: dir });
    const id = await rt.createContainer(sb.id, {
      name: 'hog', attempt: 0, image: 'x', env: {}, mounts: [], logPath: join(dir, 'h.log'), memoryLimit: 32 * 1024 * 1024,
      argv: [process.execPath, '-e', 'const a=[]; for(;;) a.push(Buffer.alloc(1<<20, 1))'],
    });
    await rt.startContainer(id);
    const s = await exitedStatus(rt, id);
    assert.equal(s.reason, 'OOMKilled');
    assert.equal(s.exitCode, 137);
  } finally {
    await rt.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('ProcessRuntime: listContainerStats reports the CPU a busy container burns and its memory', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-prt-'));
  const rt = new ProcessRuntime();
  try {
    const sb = await rt.runPodSandbox({ uid: 'u-stats', name: 'p', namespace: 'default', hostname: 'p', logDirectory: dir });
    const id = await rt.createContainer(sb.id, {
      name: 'burn', attempt: 0, image: 'busybox', logPath: join(dir, 'b.log'), env: {}, mounts: [], labels: { 'io.kubernetes.pod.uid': 'u-stats' },
      argv: ['sh', '-c', 'while :; do :; done'],
    });
    await rt.startContainer(id);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const stats = (await rt.listContainerStats()).find((s) => s.id === id);
      assert.ok(stats, 'a running container has stats');
      assert.equal(stats.podUid, 'u-stats');
      assert.equal(stats.name, 'burn');
      assert.ok((stats.workingSetBytes ?? 0) > 0, 'memory in use');
      if ((stats.usageCoreNanoSeconds ?? 0) >= 50e6) break;
      if (Date.now() > deadline) throw new Error(`cpu never reached 50ms: ${stats.usageCoreNanoSeconds}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await rt.stopContainer(id, 0);
    assert.equal((await rt.listContainerStats()).find((s) => s.id === id), undefined, 'exited containers have none');
  } finally {
    await rt.close();
    await rm(dir, { recursive: true, force: true });
  }
});
