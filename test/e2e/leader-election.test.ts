import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { removeDir, ROOT, startServer, waitFor, type ServerProcess } from './harness.js';
import { Client } from '../../src/client/rest/client.js';
import { loadKubeconfig } from '../../src/client/rest/kubeconfig.js';

// Shorter than the 15/10/2 s defaults (checked in the unit tests) to keep the test fast.
const LEASE_MS = 4000;
const RENEW_MS = 3000;
const RETRY_MS = 500;
const LEASE_NAME = 'e2e-election';
const CANDIDATE = join(ROOT, 'test/e2e/support/leader-candidate.ts');

interface Line {
  what: 'CANDIDATE' | 'LEADING' | 'STOPPED';
  id: string;
  at: number;
}

interface Candidate {
  id: string;
  proc: ChildProcess;
  exited: Promise<void>;
  killedAt?: number;
  stderr(): string;
}

describe('leader election between three processes', () => {
  let server: ServerProcess;
  let client: Client;
  const lines: Line[] = [];
  const candidates: Candidate[] = [];

  before(async () => {
    server = await startServer({ command: 'apiserver' });
    client = new Client(loadKubeconfig(server.kubeconfig), { component: 'e2e', qps: -1 });
  });
  after(async () => {
    for (const c of candidates) c.proc.kill('SIGKILL');
    await Promise.all(candidates.map((c) => c.exited));
    client?.close();
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  function launch(id: string): Candidate {
    const proc = spawn(process.execPath, ['--import', 'tsx', CANDIDATE, server.kubeconfig, id, LEASE_NAME, String(LEASE_MS), String(RENEW_MS), String(RETRY_MS)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffered = '';
    let stderr = '';
    proc.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const [what, who, at] = buffered.slice(0, nl).split(' ');
        buffered = buffered.slice(nl + 1);
        lines.push({ what: what as Line['what'], id: who, at: Number(at) });
      }
    });
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    const c: Candidate = { id, proc, exited, stderr: () => stderr };
    candidates.push(c);
    return c;
  }

  const leading = (): Line[] => lines.filter((l) => l.what === 'LEADING');
  const lease = () => client.resource<Lease>({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' }).namespace('kube-system').get(LEASE_NAME);

  /** Leadership intervals from the printed timeline; a SIGKILLed leader's ends when it was killed. */
  function intervals(): { id: string; from: number; to: number }[] {
    return leading().map((start) => {
      const stop = lines.find((l) => l.what === 'STOPPED' && l.id === start.id && l.at >= start.at);
      const killed = candidates.find((c) => c.id === start.id)?.killedAt;
      return { id: start.id, from: start.at, to: stop?.at ?? killed ?? Infinity };
    });
  }

  it('exactly one leads; a SIGKILLed leader is replaced within the lease duration', async () => {
    for (const id of ['a', 'b', 'c']) launch(id);
    await waitFor('all three candidates to campaign', () => lines.filter((l) => l.what === 'CANDIDATE').length === 3, 30_000);
    const first = await waitFor('a leader', () => leading()[0], 20_000);

    // Let the leader hold the lease for more than a lease duration: the others must keep waiting.
    await waitFor('the leader to renew for longer than a lease duration', async () => {
      const spec = (await lease()).spec;
      return spec?.holderIdentity === first.id && Date.parse(spec.renewTime ?? '') - Date.parse(spec.acquireTime ?? '') > LEASE_MS + RETRY_MS;
    }, 20_000, 200);
    assert.deepEqual(leading().map((l) => l.id), [first.id], 'nobody else led while the leader renewed');
    const transitionsBefore = (await lease()).spec?.leaseTransitions ?? 0;

    const victim = candidates.find((c) => c.id === first.id)!;
    victim.killedAt = Date.now();
    victim.proc.kill('SIGKILL');
    await victim.exited;

    const next = await waitFor('a new leader', () => leading().find((l) => l.id !== first.id), 20_000, 20);
    const takeover = next.at - victim.killedAt;
    // The others wait a full lease duration from the last renew they saw, plus up to one jittered retry period.
    assert.ok(takeover <= LEASE_MS + RETRY_MS * 1.2 + 1000, `took over ${takeover} ms after the kill`);
    assert.ok(takeover >= LEASE_MS - 2 * RETRY_MS, `took over ${takeover} ms after the kill, before the lease could expire`);
    process.stderr.write(`# ${next.id} took over ${takeover} ms after ${first.id} was killed (lease ${LEASE_MS} ms)\n`);
    const held = (await lease()).spec;
    assert.equal(held?.holderIdentity, next.id);
    assert.equal(held?.leaseTransitions, transitionsBefore + 1);

    // The third candidate stays a follower while the new leader renews for another lease duration.
    await waitFor('the new leader to renew for longer than a lease duration', async () => {
      const spec = (await lease()).spec;
      return spec?.holderIdentity === next.id && Date.parse(spec.renewTime ?? '') - Date.parse(spec.acquireTime ?? '') > LEASE_MS + RETRY_MS;
    }, 20_000, 200);

    // Graceful stop of the survivors: the leader reports that it stopped.
    const survivors = candidates.filter((c) => c !== victim);
    for (const c of survivors) c.proc.kill('SIGTERM');
    await Promise.all(survivors.map((c) => c.exited));
    assert.ok(lines.some((l) => l.what === 'STOPPED' && l.id === next.id), `stderr: ${survivors.map((c) => c.stderr()).join('')}`);

    const spans = intervals().sort((x, y) => x.from - y.from);
    assert.equal(spans.length, 2, JSON.stringify(lines));
    for (let i = 1; i < spans.length; i++) {
      assert.ok(spans[i].from >= spans[i - 1].to, `overlapping leadership: ${JSON.stringify(spans)}`);
    }
  });
});
