import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { kubectlFor, removeDir, ROOT, startServer, waitFor, type ServerProcess } from './harness.js';

const SKIFF = join(ROOT, 'bin', 'skiff.js');
// shorter than upstream's 15/10/2 s to keep the test quick, yet long enough that a leader on a loaded CI
// machine renews within its deadline (4/3 s lost the lease to a slow renewal at load 16); the step (an hour)
// dwarfs them all
const LEASE_S = 10;
const RENEW_DEADLINE_S = 8;
const HOUR_MS = 3_600_000;

interface ControllerManager {
  proc: ChildProcess;
  /** The file whose content steps this process's wall clock (SKIFF_TEST_CLOCK_OFFSET_FILE). */
  clockFile: string;
  logs(): string;
  exited: Promise<unknown>;
}

function startControllerManager(server: ServerProcess, dir: string, name: string): ControllerManager {
  const clockFile = join(dir, `${name}.clock-offset`);
  writeFileSync(clockFile, '0');
  const proc = spawn(process.execPath, [
    SKIFF, 'controller-manager', '--kubeconfig', server.kubeconfig, '--health-port', '0',
    '--leader-elect-lease-duration', String(LEASE_S), '--leader-elect-renew-deadline', String(RENEW_DEADLINE_S), '--leader-elect-retry-period', '0.5',
  ], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info', SKIFF_TEST_CLOCK_OFFSET_FILE: clockFile } });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  return { proc, clockFile, logs: () => stderr, exited };
}

const acquired = (cm: ControllerManager) => /successfully acquired lease/.test(cm.logs());

describe('leader election under a clock step, with two skiff controller-manager processes', () => {
  it('a leader whose wall clock steps back an hour keeps the lease: the other never leads until the leader dies', async () => {
    const server = await startServer({ command: 'apiserver' });
    const dir = mkdtempSync(join(tmpdir(), 'skiff-clock-'));
    const managers: ControllerManager[] = [];
    try {
      const k = kubectlFor(server.kubeconfig);
      const lease = async () => JSON.parse(await k.ok(['-n', 'kube-system', 'get', 'lease', 'kube-controller-manager', '-o', 'json'])) as { spec: { holderIdentity?: string; renewTime?: string; leaseTransitions?: number } };
      // both start at once; whichever leads first is the leader, the other the follower
      managers.push(startControllerManager(server, dir, 'a'), startControllerManager(server, dir, 'b'));
      const a = await waitFor('a controller manager to lead', () => managers.find(acquired), 90_000);
      const b = managers.find((m) => m !== a)!;
      const leader = (await lease()).spec.holderIdentity;
      assert.ok(leader);
      await waitFor('the other to see it lead', () => b.logs().includes('new leader elected') && b.logs().includes(leader), 60_000);

      // step the leader's wall clock back an hour: the renewTimes it writes are an hour old at once
      writeFileSync(a.clockFile, String(-HOUR_MS));
      await waitFor('a renewing with its stepped clock', async () => {
        const spec = (await lease()).spec;
        assert.equal(spec.holderIdentity, leader, `the lease changed hands once its holder's clock stepped back; the leader's log:\n${a.logs().slice(-2000)}`);
        return Date.now() - Date.parse(spec.renewTime ?? '') > HOUR_MS / 2;
      }, 20_000, 200);
      // a follower comparing renewTime + leaseDuration with its own wall clock would take over now; b measures
      // expiry on its monotonic clock from when it saw the record change, and a keeps changing it
      const stepped = Date.now();
      await waitFor('two lease durations with a stepped-back leader', async () => {
        assert.equal((await lease()).spec.holderIdentity, leader, `the lease changed hands while its holder renewed; the leader's log:\n${a.logs().slice(-2000)}`);
        return Date.now() - stepped > 2 * LEASE_S * 1000;
      }, 60_000, 250);
      assert.equal(acquired(b), false, `b led while a did:\n${b.logs().slice(-2000)}`);

      // and back forward an hour: still one leader
      writeFileSync(a.clockFile, '0');
      await waitFor('a renewing with its clock set right', async () => Math.abs(Date.now() - Date.parse((await lease()).spec.renewTime ?? '')) < HOUR_MS / 2, 20_000, 200);
      assert.equal(acquired(b), false);

      // the follower is not stuck: once the leader is gone, it takes over after a lease duration
      const transitions = (await lease()).spec.leaseTransitions ?? 0;
      a.proc.kill('SIGKILL');
      await a.exited;
      await waitFor('b to take over', () => acquired(b), 60_000);
      const after = (await lease()).spec;
      assert.notEqual(after.holderIdentity, leader);
      assert.equal(after.leaseTransitions, transitions + 1);
    } finally {
      for (const m of managers) m.proc.kill('SIGKILL');
      await Promise.all(managers.map((m) => m.exited));
      await server.stop();
      await removeDir(server.dataDir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
