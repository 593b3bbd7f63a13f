import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import { MetricsRegistry } from '../../base/metrics/registry.js';
import { ApiError } from '../../machinery/api-error.js';
import { parseRequestInfo } from '../request-info.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from './bootstrap-configuration.js';
import { PriorityAndFairness } from './priority-and-fairness.js';
import { QueueSet } from './queue-set.js';
import { dealHand } from './shuffle-shard.js';

const request = (method: string, path: string, name: string, groups: string[]) => ({ info: parseRequestInfo(method, path, new URLSearchParams()), user: { name, groups } });

function apf(serverConcurrencyLimit = 600, requestWaitLimitMs = 15_000) {
  const metrics = new MetricsRegistry();
  const p = new PriorityAndFairness({ serverConcurrencyLimit, requestWaitLimitMs }, metrics);
  p.configure([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS], [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]);
  return { p, metrics };
}

describe('API Priority and Fairness', () => {
  it("classifies as upstream's bootstrap configuration does", () => {
    const { p } = apf();
    const cases: [ReturnType<typeof request>, string, string][] = [
      [request('GET', '/api/v1/nodes', 'admin', ['system:masters', 'system:authenticated']), 'exempt', 'exempt'],
      [request('GET', '/readyz', 'system:anonymous', ['system:unauthenticated']), 'probes', 'exempt'],
      [request('PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1', 'system:node:n1', ['system:nodes', 'system:authenticated']), 'system-node-high', 'node-high'],
      [request('PATCH', '/api/v1/nodes/n1/status', 'system:node:n1', ['system:nodes', 'system:authenticated']), 'system-node-high', 'node-high'],
      [request('GET', '/api/v1/pods', 'system:node:n1', ['system:nodes', 'system:authenticated']), 'system-nodes', 'system'],
      [request('PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler', 'system:kube-scheduler', ['system:authenticated']), 'system-leader-election', 'leader-election'],
      [request('GET', '/api/v1/pods', 'system:kube-scheduler', ['system:authenticated']), 'kube-scheduler', 'workload-high'],
      [request('GET', '/api/v1/namespaces/kube-system/configmaps', 'system:serviceaccount:kube-system:foo', ['system:serviceaccounts', 'system:authenticated']), 'kube-system-service-accounts', 'workload-high'],
      [request('GET', '/api/v1/namespaces/a/configmaps', 'system:serviceaccount:a:b', ['system:serviceaccounts', 'system:authenticated']), 'service-accounts', 'workload-low'],
      [request('GET', '/api/v1/namespaces/a/configmaps', 'alice', ['system:authenticated']), 'global-default', 'global-default'],
    ];
    for (const [digest, schema, level] of cases) {
      const c = p.classify(digest);
      assert.deepEqual([c.flowSchema.metadata?.name, c.priorityLevel.metadata?.name], [schema, level], `${digest.user.name} ${digest.info.verb} ${digest.info.path}`);
    }
    assert.equal(p.classify(cases[9][0]).distinguisher, 'alice');
  });

  it('falls back to the mandatory objects when the stored ones are missing, and ignores dangling schemas', () => {
    const { p } = apf();
    p.configure([{ ...SUGGESTED_FLOW_SCHEMAS.find((s) => s.metadata?.name === 'global-default')!, spec: { priorityLevelConfiguration: { name: 'nope' }, matchingPrecedence: 9900 } }], []);
    const c = p.classify(request('GET', '/api/v1/namespaces/a/configmaps', 'alice', ['system:authenticated']));
    assert.equal(c.flowSchema.metadata?.name, 'catch-all');
  });

  it('gives each limited level seats in proportion to its shares; a Reject level refuses at once with 429', async () => {
    const { p, metrics } = apf(245);
    assert.match(await metrics.render(), /apiserver_flowcontrol_nominal_limit_seats\{priority_level="catch-all"\} 5\n/);
    assert.match(await metrics.render(), /apiserver_flowcontrol_nominal_limit_seats\{priority_level="workload-low"\} 100\n/);
    p.configure([...MANDATORY_FLOW_SCHEMAS], [...MANDATORY_PRIORITY_LEVELS]);
    const alice = request('GET', '/api/v1/namespaces/a/configmaps', 'alice', ['system:authenticated']);
    const held = [];
    for (let i = 0; i < 245; i++) held.push(await p.admit(alice, new AbortController().signal, () => {}));
    await assert.rejects(p.admit(alice, new AbortController().signal, () => {}), (err: unknown) => err instanceof ApiError && err.code === 429 && err.message === 'Too many requests, please try again later.');
    assert.match(await metrics.render(), /apiserver_flowcontrol_rejected_requests_total\{flow_schema="catch-all",priority_level="catch-all",reason="concurrency-limit"\} 1\n/);
    // the admin is exempt however full the server is
    const admin = request('GET', '/api/v1/nodes', 'admin', ['system:masters']);
    (await p.admit(admin, new AbortController().signal, () => {}))();
    for (const release of held) release();
  });
  it('lends the seats of an idle level to a busy one every borrowing period, within lendablePercent and borrowingLimitPercent', async () => {
    let now = 0;
    const metrics = new MetricsRegistry();
    const p = new PriorityAndFairness({ serverConcurrencyLimit: 100, requestWaitLimitMs: 60_000, now: () => now }, metrics);
    const level = (name: string, limited: Record<string, unknown>): PriorityLevelConfiguration => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name }, spec: { type: 'Limited' as const, limited: { nominalConcurrencyShares: 50, limitResponse: { type: 'Queue' as const, queuing: { queues: 1, handSize: 1, queueLengthLimit: 200 } }, ...limited } } });
    const schema = (name: string, user: string): FlowSchema => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name }, spec: { priorityLevelConfiguration: { name }, matchingPrecedence: 500, rules: [{ subjects: [{ kind: 'User' as const, user: { name: user } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }] } });
    const configure = (busyLimited: Record<string, unknown>) => p.configure([...MANDATORY_FLOW_SCHEMAS, schema('lender', 'idle'), schema('borrower', 'busy')], [...MANDATORY_PRIORITY_LEVELS, level('lender', { lendablePercent: 50 }), level('borrower', busyLimited)]);
    // shares 50 + 50 + catch-all's 5: 48 seats each, 5 for catch-all; the lender may lend 24
    configure({});
    const busy = request('GET', '/api/v1/namespaces/a/configmaps', 'busy', ['system:authenticated']);
    const running: (() => void)[] = [];
    const admit = () => p.admit(busy, new AbortController().signal, () => {}).then((release) => void running.push(release));
    const waiting = Array.from({ length: 120 }, admit);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(running.length, 48);
    now = 10_000;
    p.rebalance();
    await new Promise((resolve) => setImmediate(resolve));
    // 101 seats in all: the lender keeps 24 and catch-all 5, the borrower gets the other 72
    assert.equal(running.length, 72);
    assert.match(await metrics.render(), /apiserver_flowcontrol_current_limit_seats\{priority_level="borrower"\} 72\n/);
    assert.match(await metrics.render(), /apiserver_flowcontrol_current_limit_seats\{priority_level="lender"\} 24\n/);
    // borrowingLimitPercent 25: at most 12 more than its nominal 48
    configure({ borrowingLimitPercent: 25 });
    now = 20_000;
    p.rebalance();
    assert.match(await metrics.render(), /apiserver_flowcontrol_current_limit_seats\{priority_level="borrower"\} 60\n/);
    assert.match(await metrics.render(), /apiserver_flowcontrol_upper_limit_seats\{priority_level="borrower"\} 60\n/);
    while (running.length > 0) {
      for (const release of running.splice(0)) release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waiting);
  });
});

describe('QueueSet', () => {
  it('deals distinct cards from a hash', () => {
    for (const hash of [0, 1, 12345678901, 2 ** 47 + 3]) {
      const hand = dealHand(hash, 8, 6);
      assert.equal(new Set(hand).size, 6);
      assert.ok(hand.every((c) => c >= 0 && c < 8));
    }
  });

  it('queues beyond its seats, rejects when the queue is full, times out, and serves flows fairly', async () => {
    const q = new QueueSet({ concurrencyLimit: 1, queues: 2, handSize: 1, queueLengthLimit: 2 });
    const first = await q.admit(1, 60_000);
    assert.ok(first.admitted);
    // two flows on different queues (hand size 1: hash 0 → queue 0, hash 1 → queue 1)
    const heavy = [q.admit(0, 60_000), q.admit(0, 60_000)];
    assert.deepEqual(await q.admit(0, 60_000), { admitted: false, reason: 'queue-full', waitedMs: 0 });
    const light = q.admit(1, 60_000);
    const order: string[] = [];
    void heavy[0].then(() => order.push('heavy'));
    void heavy[1].then(() => order.push('heavy'));
    void light.then(() => order.push('light'));
    first.release();
    const a = await Promise.race([...heavy, light]);
    assert.ok(a.admitted);
    a.release();
    const b = await Promise.race([heavy[1], light]);
    assert.ok(b.admitted);
    b.release();
    const rest = await Promise.all([...heavy, light]);
    for (const r of rest) if (r.admitted) r.release();
    // the light flow is not served after all of the heavy flow's requests
    assert.notDeepEqual(order, ['heavy', 'heavy', 'light']);
    const busy = await q.admit(0, 60_000);
    assert.ok(busy.admitted);
    const late = await q.admit(0, 10);
    assert.equal(late.admitted ? '' : late.reason, 'time-out');
    const leaving = new AbortController();
    const gone = q.admit(0, 60_000, leaving.signal);
    leaving.abort();
    const g = await gone;
    assert.equal(g.admitted ? '' : g.reason, 'cancelled');
    busy.release();
    assert.equal(q.executingRequests, 0);
    assert.equal(q.waitingRequests, 0);
  });

  it('hands a freed seat on at the next turn of the event loop, not from inside the release', async () => {
    const q = new QueueSet({ concurrencyLimit: 1, queues: 1, handSize: 1, queueLengthLimit: 5 });
    const first = await q.admit(0, 60_000);
    assert.ok(first.admitted);
    let second = false;
    const next = q.admit(0, 60_000).then((a) => ((second = true), a));
    first.release();
    await Promise.resolve();
    assert.equal(q.executingRequests, 0);
    // a newcomer does not overtake the waiting request
    const third = q.admit(0, 60_000);
    assert.equal(q.waitingRequests, 2);
    const a = await next;
    assert.ok(second && a.admitted);
    a.release();
    const b = await third;
    assert.ok(b.admitted);
    b.release();
  });
});
