import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { FaultProxy } from '../../testing/fault-proxy.js';
import { TestObjects } from '../../testing/objects.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { waitFor } from '../testing/wait-for.js';
import { Client } from '../rest/client.js';
import { ApiError } from '../../machinery/api-error.js';
import { realClock } from '../../base/clock.js';
import { FakeClock } from '../../base/fake-clock.js';
import { LEADER_ELECTION_DEFAULTS, leaderElectionTimings, runLeaderElection, type LeaderElectionOptions } from './leader-election.js';
import { LEASES } from '../../api/resource-refs.js';

let api: TestApiServer;
let server: FaultProxy;
let client: Client;
before(async () => {
  api = await startTestApiServer();
  server = new FaultProxy(api);
  client = new Client({ server: await server.start(), qps: -1 });
});
after(async () => {
  client.close();
  await server.close();
  await api.stop();
});

const FAST = { leaseDurationMs: 400, renewDeadlineMs: 250, retryPeriodMs: 40 };

function candidate(identity: string, name: string, extra: Partial<LeaderElectionOptions> = {}) {
  const ac = new AbortController();
  const state = { leading: false, stopped: false, lostSignal: false };
  const done = runLeaderElection({
    ...FAST,
    lease: { namespace: 'kube-system', name },
    identity,
    client,
    signal: ac.signal,
    releaseOnCancel: true,
    onStartedLeading: async (signal) => {
      state.leading = true;
      await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      state.lostSignal = true;
    },
    onStoppedLeading: () => {
      state.leading = false;
      state.stopped = true;
    },
    ...extra,
  });
  return { ac, state, done };
}

const lease = async (name: string): Promise<Lease> => (await new TestObjects(api.client).list<Lease>(LEASES)).find((l) => l.metadata?.name === name)!;

test('one leader at a time; release on cancel hands over with a transition', async () => {
  const a = candidate('a', 'one');
  await waitFor(() => a.state.leading, 'a leads');
  const b = candidate('b', 'one');
  await new Promise((r) => setTimeout(r, 150)); // several of b's retry periods
  assert.equal(b.state.leading, false);
  const l = await lease('one');
  assert.equal(l.spec?.holderIdentity, 'a');
  assert.equal(l.spec?.leaseTransitions, 0);
  assert.match(l.spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  a.ac.abort();
  await a.done;
  assert.equal(a.state.lostSignal, true);
  assert.equal(a.state.stopped, true);
  await waitFor(() => b.state.leading, 'b takes over');
  assert.equal((await lease('one')).spec?.holderIdentity, 'b');
  assert.equal((await lease('one')).spec?.leaseTransitions, 1);
  b.ac.abort();
  await b.done;
});

test('a leader that cannot renew within the deadline loses leadership; others take over after expiry', async () => {
  const a = candidate('a', 'two', { releaseOnCancel: false });
  await waitFor(() => a.state.leading, 'a leads');
  server.failNext((r) => r.method === 'PUT' && r.url.pathname.endsWith('/leases/two'), new ApiError(500, 'InternalError', 'down'), { times: 1000 });
  await a.done; // resolves by itself on loss
  assert.equal(a.state.lostSignal, true);
  assert.equal(a.state.stopped, true);
  server.clearFailures();
  const b = candidate('b', 'two');
  await waitFor(() => b.state.leading, 'b takes over once a lease duration passed without renew', 3000);
  assert.equal((await lease('two')).spec?.leaseTransitions, 1);
  b.ac.abort();
  await b.done;
});

test('an expired lease of a dead holder is taken over', async () => {
  await new TestObjects(api.client).put(LEASES, {
    metadata: { namespace: 'kube-system', name: 'three' },
    spec: { holderIdentity: 'dead', leaseDurationSeconds: 1, renewTime: '2020-01-01T00:00:00.000000Z', leaseTransitions: 4 },
  } as Lease);
  const leaders: string[] = [];
  const c = candidate('c', 'three', { onNewLeader: (id) => leaders.push(id) });
  await waitFor(() => c.state.leading, 'c takes over after observing no renew for a lease duration', 3000);
  assert.deepEqual(leaders, ['dead', 'c']);
  assert.equal((await lease('three')).spec?.leaseTransitions, 5);
  c.ac.abort();
  await c.done;
});

test('defaults are upstream\'s 15 s lease, 10 s renew deadline, 2 s retry; the lease records 15 s', async () => {
  assert.deepEqual(leaderElectionTimings({}), { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  assert.deepEqual({ ...LEADER_ELECTION_DEFAULTS }, { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  assert.deepEqual(leaderElectionTimings({ leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 }), { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 });
  assert.throws(() => leaderElectionTimings({ leaseDurationMs: 10_000 }), RangeError, 'renew deadline must be below the lease');
  assert.throws(() => leaderElectionTimings({ retryPeriodMs: 10_000 }), RangeError, 'retry must be below the renew deadline');

  // Nothing overridden: the first acquire happens at once and writes the default duration.
  const ac = new AbortController();
  let leading = false;
  const done = runLeaderElection({
    lease: { namespace: 'kube-system', name: 'defaults' },
    identity: 'd',
    client,
    signal: ac.signal,
    onStartedLeading: () => {
      leading = true;
    },
  });
  await waitFor(() => leading, 'd leads');
  assert.equal((await lease('defaults')).spec?.leaseDurationSeconds, 15);
  ac.abort();
  await done;
});

test('a renew that hangs is abandoned at the renew deadline, before the lease could expire', async () => {
  const timings = { leaseDurationMs: 1500, renewDeadlineMs: 600, retryPeriodMs: 100 };
  const a = candidate('a', 'hang', { ...timings, releaseOnCancel: false });
  await waitFor(() => a.state.leading, 'a leads');
  server.stallNext((r) => r.url.pathname.endsWith('/leases/hang'), { times: 1000 });
  const stalledAt = Date.now();
  await a.done;
  const heldFor = Date.now() - stalledAt;
  server.clearFailures();
  assert.equal(a.state.lostSignal, true);
  // At most one retry period of sleep plus the deadline; far below the lease duration.
  assert.ok(heldFor < timings.retryPeriodMs + timings.renewDeadlineMs + 200, `stepped down after ${heldFor}ms`);
});

test('a leader whose wall clock steps back an hour while renews fail still steps down before anyone else leads', async () => {
  // real timers and a real monotonic clock; only the wall clock jumps
  let wallShift = 0;
  const stepped = { ...realClock, now: () => Date.now() + wallShift, sleep: (ms: number, signal?: AbortSignal) => realClock.sleep(ms, signal) };
  const timeline: string[] = [];
  const timings = { leaseDurationMs: 2000, renewDeadlineMs: 1000, retryPeriodMs: 100 };
  const a = candidate('a', 'step', {
    ...timings,
    releaseOnCancel: false,
    clock: stepped,
    onStartedLeading: async (signal) => {
      timeline.push('a leads');
      await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      timeline.push('a stops');
    },
    // the first failed renew: the wall clock steps back mid-deadline
    onError: () => {
      if (wallShift === 0) wallShift = -3_600_000;
    },
  });
  await waitFor(() => timeline.includes('a leads'), 'a leads');
  // b reaches the API server directly: only a is cut off
  const b = candidate('b', 'step', {
    ...timings,
    client: api.client,
    onStartedLeading: async (signal) => {
      timeline.push('b leads');
      await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    },
  });
  server.failNext((r) => r.method === 'PUT' && r.url.pathname.endsWith('/leases/step'), new ApiError(500, 'InternalError', 'down'), { times: 100_000 });
  await waitFor(() => timeline.includes('b leads'), 'b takes over', 10_000);
  server.clearFailures();
  assert.equal(wallShift, -3_600_000, 'the wall clock was stepped');
  assert.deepEqual(timeline, ['a leads', 'a stops', 'b leads']);
  a.ac.abort();
  b.ac.abort();
  await Promise.all([a.done, b.done]);
});

test('FakeClock: a wall step moves now() but neither monotonic() nor timers', async () => {
  const clock = new FakeClock();
  const m0 = clock.monotonic();
  let fired = false;
  clock.setTimeout(() => (fired = true), 1000);
  clock.stepWall(-3_600_000);
  assert.equal(clock.monotonic(), m0);
  await clock.advance(999);
  assert.equal(fired, false);
  await clock.advance(1);
  assert.equal(fired, true);
  assert.equal(clock.monotonic(), m0 + 1000);
});
