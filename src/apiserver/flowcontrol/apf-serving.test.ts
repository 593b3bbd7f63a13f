import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PublicInfoAuthorizer } from '../authorization/public-info.js';
import { AlwaysAllowAuthenticated } from '../authorization/always-allow.js';
import type { Attributes, Authorizer, AuthorizationResult } from '../authorization/authorizer.js';
import { startInProcessServer } from '../in-process-server.test-util.js';

/** Holds every request of user "slow" in authorization (after APF gave it a seat) until opened. */
class GateAuthorizer implements Authorizer {
  readonly name = 'gate';
  waiting = 0;
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    if (attrs.user.name === 'slow') {
      this.waiting++;
      await this.gate;
    }
    return { decision: 'NoOpinion', reason: '' };
  }
  release(): void {
    this.open();
  }
}

async function until(what: string, cond: () => boolean | Promise<boolean>, deadlineMs = 10_000): Promise<void> {
  const end = performance.now() + deadlineMs;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';

test("APF: bootstrap objects served; a flow's own priority level queues then rejects it with 429 and the PF headers, other users and the admin unaffected", async () => {
  const gate = new GateAuthorizer();
  const s = await startInProcessServer({ limits: { maxRequestsInflight: 2, maxMutatingRequestsInflight: 1 }, pipeline: { authorizers: () => [gate, new PublicInfoAuthorizer(), new AlwaysAllowAuthenticated()] } });
  try {
    await until('the bootstrap configuration', async () => (await s.request('GET', `${FC}/flowschemas/global-default`)).status === 200);
    const levels = (await s.request('GET', `${FC}/prioritylevelconfigurations`)).json() as { items: { metadata: { name: string } }[] };
    assert.deepEqual(levels.items.map((l) => l.metadata.name).sort(), ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
    const pl = await s.request('POST', `${FC}/prioritylevelconfigurations`, {
      body: { metadata: { name: 'slow-lane' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } } } } },
    });
    assert.equal(pl.status, 201, pl.text);
    const fs = await s.request('POST', `${FC}/flowschemas`, {
      body: {
        metadata: { name: 'slow-users' },
        spec: {
          priorityLevelConfiguration: { name: 'slow-lane' },
          matchingPrecedence: 500,
          distinguisherMethod: { type: 'ByUser' },
          rules: [{ subjects: [{ kind: 'User', user: { name: 'slow' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }],
        },
      },
    });
    assert.equal(fs.status, 201, fs.text);
    const fsUid = (fs.json() as { metadata: { uid: string } }).metadata.uid;
    const plUid = (pl.json() as { metadata: { uid: string } }).metadata.uid;
    await until('the new level to be configured', async () => /apiserver_flowcontrol_nominal_limit_seats\{priority_level="slow-lane"\} 1\n/.test(await s.server.metrics.render()));

    const slow = await s.clientCertificate('slow');
    const jane = await s.clientCertificate('jane');
    // one seat: the first request holds it, the second waits in the one queue, the third finds the queue full
    const held = s.request('GET', '/api/v1/namespaces', { client: slow });
    await until('the held request', () => gate.waiting === 1);
    const queued = s.request('GET', '/api/v1/configmaps', { client: slow });
    await until('the queued request', async () => /apiserver_flowcontrol_current_inqueue_requests\{flow_schema="slow-users",priority_level="slow-lane"\} 1\n/.test(await s.server.metrics.render()));
    const refused = await s.request('GET', '/api/v1/namespaces/default', { client: slow });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal((refused.json() as { message: string }).message, 'Too many requests, please try again later.');
    assert.equal(refused.headers['x-kubernetes-pf-flowschema-uid'], fsUid);
    assert.equal(refused.headers['x-kubernetes-pf-prioritylevel-uid'], plUid);
    assert.match(await s.server.metrics.render(), /apiserver_flowcontrol_rejected_requests_total\{flow_schema="slow-users",priority_level="slow-lane",reason="queue-full"\} 1\n/);
    // another user's level has its own seats; the admin is exempt
    const other = await s.request('GET', '/api/v1/namespaces/default', { client: jane });
    assert.equal(other.status, 200);
    const globalDefault = (await s.request('GET', `${FC}/flowschemas/global-default`)).json() as { metadata: { uid: string } };
    assert.equal(other.headers['x-kubernetes-pf-flowschema-uid'], globalDefault.metadata.uid);
    assert.equal((await s.request('GET', '/api/v1/nodes')).status, 200);
    gate.release();
    assert.equal((await held).status, 200);
    assert.equal((await queued).status, 200);

    // a deleted mandatory object comes back
    assert.equal((await s.request('DELETE', `${FC}/flowschemas/catch-all`)).status, 200);
    await until('catch-all recreated', async () => (await s.request('GET', `${FC}/flowschemas/catch-all`)).status === 200);
  } finally {
    gate.release();
    await s.stop();
  }
});
