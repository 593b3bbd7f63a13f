import assert from 'node:assert/strict';
import { mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { missingCommand, skipUnless } from '../../testing/requirements.js';
import { RuntimeError, type ContainerConfig, type ContainerStatus, type Runtime } from './runtime.js';

/** Waits for a runtime condition with a deadline (no fixed sleeps). */
async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The behaviour every Runtime must share (STYLE rule 10). Commands used are
 * the ones FakeRuntime understands too: `sleep N` runs until stopped, `true`
 * exits 0, `false` exits 1.
 */
/** What a runtime does beyond the shared core: cases it cannot pass are not registered for it (rather than skipped). */
export interface RuntimeCapabilities {
  /** Writes CRI log files and reopens them on rotation (ReopenContainerLog). Default true. */
  logFiles?: boolean;
  /** Runs real processes (a server inside a container can answer). Default true. */
  processes?: boolean;
}

export function runtimeConformance(name: string, create: () => Runtime | Promise<Runtime>, cleanup?: (r: Runtime) => Promise<void>, can: RuntimeCapabilities = {}): void {
  describe(`runtime conformance: ${name}`, () => {
    let rt: Runtime;
    let dir: string;
    before(async () => {
      rt = await create();
      dir = await mkdtemp(join(tmpdir(), 'skiff-rt-'));
    });
    after(async () => {
      await cleanup?.(rt);
      await rm(dir, { recursive: true, force: true });
    });

    const sandbox = (uid: string) => rt.runPodSandbox({ uid, name: `p-${uid}`, namespace: 'default', hostname: `p-${uid}`, logDirectory: join(dir, uid) });
    const config = (cname: string, argv: string[], attempt = 0): ContainerConfig => ({
      name: cname, attempt, image: 'busybox', argv, env: {}, mounts: [], logPath: join(dir, `${cname}-${attempt}.log`),
    });
    const exited = (id: string) => until(`container ${id} exits`, async () => {
      const s = await rt.containerStatus(id);
      return s.state === 'Exited' ? s : undefined;
    });

    test('a sandbox is listed as Ready after runPodSandbox and NotReady after stop', async () => {
      const sb = await sandbox('s1');
      assert.equal(sb.state, 'Ready');
      assert.ok((await rt.listPodSandboxes()).some((s) => s.id === sb.id && s.podUid === 's1'));
      await rt.stopPodSandbox(sb.id);
      assert.equal((await rt.listPodSandboxes()).find((s) => s.id === sb.id)?.state, 'NotReady');
      await rt.removePodSandbox(sb.id);
      assert.ok(!(await rt.listPodSandboxes()).some((s) => s.id === sb.id));
    });

    test('create, start and stop a long-running container', async () => {
      const sb = await sandbox('s2');
      const id = await rt.createContainer(sb.id, config('sleeper', ['sleep', '30']));
      assert.equal((await rt.containerStatus(id)).state, 'Created');
      await rt.startContainer(id);
      const running = await rt.containerStatus(id);
      assert.equal(running.state, 'Running');
      assert.ok(running.startedAt);
      await rt.stopContainer(id, 5);
      const s = await rt.containerStatus(id);
      assert.equal(s.state, 'Exited');
      assert.notEqual(s.exitCode, 0);
      assert.equal(s.reason, 'Error');
      await rt.removePodSandbox(sb.id);
    });

    test('exit codes become Completed and Error, and exits are announced', async () => {
      const sb = await sandbox('s3');
      const events: ContainerStatus[] = [];
      rt.onContainerEvent((s) => events.push(s));
      const ok = await rt.createContainer(sb.id, config('ok', ['true']));
      const bad = await rt.createContainer(sb.id, config('bad', ['false']));
      await rt.startContainer(ok);
      await rt.startContainer(bad);
      const okS = await exited(ok);
      const badS = await exited(bad);
      assert.equal(okS.exitCode, 0);
      assert.equal(okS.reason, 'Completed');
      assert.equal(badS.exitCode, 1);
      assert.equal(badS.reason, 'Error');
      assert.ok(okS.finishedAt);
      await until('exit events', async () => (events.some((e) => e.id === ok) && events.some((e) => e.id === bad) ? true : undefined));
      await rt.removePodSandbox(sb.id);
    });

    test('listContainers filters by sandbox; removeContainer forgets it', async () => {
      const a = await sandbox('s4a');
      const b = await sandbox('s4b');
      const ca = await rt.createContainer(a.id, config('a', ['sleep', '30']));
      await rt.createContainer(b.id, config('b', ['sleep', '30']));
      assert.deepEqual((await rt.listContainers({ sandboxId: a.id })).map((c) => c.id), [ca]);
      await rt.removeContainer(ca);
      assert.deepEqual(await rt.listContainers({ sandboxId: a.id }), []);
      await assert.rejects(rt.containerStatus(ca), RuntimeError);
      await rt.removePodSandbox(a.id);
      await rt.removePodSandbox(b.id);
    });

    test('a container without a command fails to create with CreateContainerError', async () => {
      const sb = await sandbox('s5');
      await assert.rejects(rt.createContainer(sb.id, config('none', [])), (err: unknown) => err instanceof RuntimeError && err.reason === 'CreateContainerError');
      await rt.removePodSandbox(sb.id);
    });

    test('execSync returns the exit code of the command', async () => {
      const sb = await sandbox('s6');
      const id = await rt.createContainer(sb.id, config('x', ['sleep', '30']));
      await rt.startContainer(id);
      assert.equal((await rt.execSync(id, ['true'], 5000)).exitCode, 0);
      assert.equal((await rt.execSync(id, ['false'], 5000)).exitCode, 1);
      await rt.removePodSandbox(sb.id);
    });

    if (can.logFiles !== false) test('a rotated log is reopened: the renamed file keeps the old lines, new ones go to the path', async () => {
      assert.ok('reopenContainerLog' in rt, 'a runtime that writes log files reopens them');
      const reopen = (rt as Runtime & { reopenContainerLog(id: string): Promise<void> }).reopenContainerLog.bind(rt);
      const sb = await sandbox('s8');
      const cfg = config('talker', ['sh', '-c', 'i=0; while true; do echo line $i; i=$((i+1)); sleep 0.05; done']);
      const id = await rt.createContainer(sb.id, cfg);
      await rt.startContainer(id);
      const sizeOf = async (p: string) => (await stat(p).catch(() => undefined))?.size ?? 0;
      await until('the first lines', async () => ((await sizeOf(cfg.logPath)) > 0 ? true : undefined));
      await rename(cfg.logPath, `${cfg.logPath}.1`);
      await reopen(id);
      await until('lines in the reopened file', async () => ((await sizeOf(cfg.logPath)) > 0 ? true : undefined));
      assert.match(await readFile(`${cfg.logPath}.1`, 'utf8'), / stdout F line 0\n/);
      assert.doesNotMatch(await readFile(cfg.logPath, 'utf8'), / stdout F line 0\n/);
      await rt.removePodSandbox(sb.id);
    });

    if (can.processes !== false) test('portForward reaches a server on the pod\'s own localhost', skipUnless(missingCommand('busybox', ['true'], 'apt-get install -y busybox-static')), async () => {
      const port = 20_000 + Math.floor(Math.random() * 30_000);
      const sb = await sandbox('s9');
      const www = join(dir, 'www-s9');
      const id = await rt.createContainer(sb.id, config('listener', ['busybox', 'sh', '-c', `mkdir -p ${www} && echo hello > ${www}/index.html && exec busybox httpd -f -p 127.0.0.1:${port} -h ${www}`]));
      await rt.startContainer(id);
      const answer = await until('an answer through portForward', async () => {
        const conn = await rt.portForward(sb.id, port).catch(() => undefined);
        if (!conn) return undefined;
        const text = await new Promise<string>((resolve) => {
          let got = '';
          conn.on('data', (d: Buffer) => (got += d.toString()));
          conn.on('end', () => resolve(got));
          conn.on('error', () => resolve(got));
          conn.end('GET /index.html HTTP/1.0\r\n\r\n');
        });
        conn.destroy();
        return text || undefined;
      }, 15_000);
      assert.match(answer, /^HTTP\/1\.[01] 200 OK\r\n[^]*\r\n\r\nhello\n$/);
      await rt.removePodSandbox(sb.id);
    });

    test('stopping a sandbox stops its containers', async () => {
      const sb = await sandbox('s7');
      const id = await rt.createContainer(sb.id, config('y', ['sleep', '30']));
      await rt.startContainer(id);
      await rt.stopPodSandbox(sb.id);
      assert.equal((await rt.containerStatus(id)).state, 'Exited');
      await rt.removePodSandbox(sb.id);
    });
  });
}
