import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ProcessRuntime } from './process-runtime.js';
import { processStartTime } from './proc-stat.js';

async function until<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const config = (dir: string, argv: string[]) => ({ name: 'c', attempt: 0, image: 'busybox', argv, env: {}, mounts: [], logPath: join(dir, 'c.log') });

test('a runtime reopened on the same state directory adopts running containers without restarting them', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-adopt-'));
  const stateDir = join(dir, 'state');
  const flag = join(dir, 'flag');
  const first = new ProcessRuntime({ stateDir, adoptedPollMs: 50 });
  let second: ProcessRuntime | undefined;
  try {
    const sb = await first.runPodSandbox({ uid: 'a1', name: 'p', namespace: 'default', hostname: 'p', logDirectory: dir });
    // prints, then waits for the flag file, prints again and exits 7
    const id = await first.createContainer(sb.id, config(dir, ['sh', '-c', `echo before; while [ ! -e ${flag} ]; do sleep 0.05; done; echo after; exit 7`]));
    await first.startContainer(id);
    const before = await first.containerStatus(id);
    await until('first output', async () => (await readFile(join(dir, 'c.log'), 'utf8').catch(() => '')).includes('before'));
    await first.detach();
    assert.ok(processStartTime(before.pid!) !== undefined, 'the container outlives its runtime');

    second = new ProcessRuntime({ stateDir, adoptedPollMs: 50 });
    assert.deepEqual((await second.listPodSandboxes()).map((s) => s.podUid), ['a1']);
    const adopted = await second.containerStatus(id);
    assert.equal(adopted.state, 'Running');
    assert.equal(adopted.pid, before.pid);
    assert.equal(adopted.startedAt?.getTime(), before.startedAt?.getTime());
    const events: string[] = [];
    second.onContainerEvent((s) => events.push(`${s.id} ${s.state}`));
    await writeFile(flag, '');
    const exited = await until('the adopted container exits', async () => {
      const s = await second!.containerStatus(id);
      return s.state === 'Exited' ? s : undefined;
    });
    assert.equal(exited.exitCode, 7);
    assert.equal(exited.reason, 'Error');
    assert.deepEqual(events, [`${id} Exited`]);
    // output written after the adoption reaches the same log
    await until('later output', async () => (await readFile(join(dir, 'c.log'), 'utf8')).includes('after'));
  } finally {
    await first.close();
    await second?.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a container that ended while no runtime watched is reported with the exit status its shim recorded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-adopt-'));
  const stateDir = join(dir, 'state');
  const flag = join(dir, 'flag');
  const first = new ProcessRuntime({ stateDir });
  let second: ProcessRuntime | undefined;
  try {
    const sb = await first.runPodSandbox({ uid: 'a2', name: 'p', namespace: 'default', hostname: 'p', logDirectory: dir });
    const id = await first.createContainer(sb.id, config(dir, ['sh', '-c', `while [ ! -e ${flag} ]; do sleep 0.05; done; exit 3`]));
    await first.startContainer(id);
    const pid = (await first.containerStatus(id)).pid!;
    await first.detach();
    await writeFile(flag, '');
    await until('the container ends', () => processStartTime(pid) === undefined);
    await until('its shim records the exit', async () => (await readFile(join(stateDir, 'containers', id, 'exit'), 'utf8').catch(() => '')).trim() === '3');
    second = new ProcessRuntime({ stateDir });
    const s = await until('the restored container is Exited', async () => {
      const st = await second!.containerStatus(id);
      return st.state === 'Exited' ? st : undefined;
    });
    assert.equal(s.exitCode, 3);
    assert.equal(s.reason, 'Error');
  } finally {
    await first.close();
    await second?.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a recorded pid now owned by another process is not adopted', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-adopt-'));
  const stateDir = join(dir, 'state');
  const first = new ProcessRuntime({ stateDir });
  let second: ProcessRuntime | undefined;
  try {
    const sb = await first.runPodSandbox({ uid: 'a3', name: 'p', namespace: 'default', hostname: 'p', logDirectory: dir });
    const id = await first.createContainer(sb.id, config(dir, ['sleep', '30']));
    await first.startContainer(id);
    await first.detach();
    // pretend the pid was reused: the recorded start time no longer matches
    const file = join(stateDir, 'containers', id, 'state.json');
    const state = JSON.parse(await readFile(file, 'utf8')) as { startTime: number; shimStartTime: number; status: { pid: number } };
    const pid = state.status.pid;
    await writeFile(file, JSON.stringify({ ...state, startTime: state.startTime - 1, shimStartTime: state.shimStartTime - 1 }));
    second = new ProcessRuntime({ stateDir });
    const s = await until('the container is given up as Exited', async () => {
      const st = await second!.containerStatus(id);
      return st.state === 'Exited' ? st : undefined;
    });
    assert.equal(s.reason, 'ContainerStatusUnknown');
    assert.equal(s.exitCode, 137);
    // the real process behind the recorded pid was the runtime's own, so clean it up by hand
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone
    }
  } finally {
    await first.close();
    await second?.close();
    await rm(dir, { recursive: true, force: true });
  }
});
