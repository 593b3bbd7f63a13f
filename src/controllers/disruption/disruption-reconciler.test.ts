import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import type { Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Event, Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { Lister } from '../../client/cache/lister.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { EventRecorder } from '../../client/events/event-recorder.js';
import { TestObjects } from '../../testing/objects.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { EVENTS, POD_DISRUPTION_BUDGETS } from '../../api/resource-refs.js';
import { DisruptionReconciler } from './disruption-reconciler.js';

let api: TestApiServer;
let recorder: EventRecorder;
beforeEach(async () => {
  api = await startTestApiServer({ namespaces: ['d'] });
  recorder = new EventRecorder({ client: api.client, component: 'controllermanager' });
});
afterEach(async () => {
  await recorder.stop();
  await api.stop();
});

test('a budget whose selector cannot be parsed: NoPods warning, SyncFailed, nothing may be disrupted, and the next budget still syncs', async () => {
  const objects = new TestObjects(api.client);
  const stored = await objects.put<PodDisruptionBudget>(POD_DISRUPTION_BUDGETS, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'b', namespace: 'd' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'a' } } } });
  const good = await objects.put<PodDisruptionBudget>(POD_DISRUPTION_BUDGETS, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'ok', namespace: 'd' }, spec: { minAvailable: 0, selector: { matchLabels: { app: 'a' } } } });
  // an object stored before validation refused such selectors (upstream ratchets old invalid ones)
  const bad = { ...stored, spec: { ...stored.spec, selector: { matchExpressions: [{ key: 'app', operator: 'Bogus', values: ['a'] }] } } };
  const pdbs = new MapIndexer<PodDisruptionBudget>();
  pdbs.replace([bad, good], '');
  const reconciler = new DisruptionReconciler({
    client: api.client,
    recorder,
    pdbs: new Lister(pdbs),
    pods: new Lister(new MapIndexer<Pod>()),
    replicaSets: new Lister(new MapIndexer<ReplicaSet>()),
    deployments: new Lister(new MapIndexer<Deployment>()),
    statefulSets: new Lister(new MapIndexer<StatefulSet>()),
  });
  const signal = new AbortController().signal;
  await reconciler.reconcile('d/b', signal);
  await reconciler.reconcile('d/ok', signal);
  await recorder.flush();

  const written = await api.client.resource<PodDisruptionBudget>(POD_DISRUPTION_BUDGETS).namespace('d').get('b');
  assert.equal(written.status?.disruptionsAllowed, 0);
  const cond = written.status?.conditions?.find((c) => c.type === 'DisruptionAllowed');
  assert.equal(cond?.status, 'False');
  assert.equal(cond?.reason, 'SyncFailed');
  assert.equal(cond?.message, '"Bogus" is not a valid label selector operator');
  const events = (await objects.list<Event>(EVENTS)).filter((e) => e.involvedObject.name === 'b');
  assert.ok(events.some((e) => e.type === 'Warning' && e.reason === 'NoPods' && e.message === 'Failed to get pods: "Bogus" is not a valid label selector operator'), JSON.stringify(events.map((e) => e.message)));

  const other = await api.client.resource<PodDisruptionBudget>(POD_DISRUPTION_BUDGETS).namespace('d').get('ok');
  assert.equal(other.status?.conditions?.find((c) => c.type === 'DisruptionAllowed')?.reason, 'InsufficientPods');
});

test('validation refuses a bad selector outright (422 with the field message)', async () => {
  const err = await api.client
    .resource<PodDisruptionBudget>(POD_DISRUPTION_BUDGETS)
    .namespace('d')
    .create({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'x' }, spec: { selector: { matchExpressions: [{ key: 'app', operator: 'Bogus', values: ['a'] }] } } })
    .then(() => undefined, (e: unknown) => e as { code?: number; message?: string });
  assert.equal(err?.code, 422);
  assert.match(err?.message ?? '', /spec\.selector\.matchExpressions\[0\]\.operator: Invalid value: "Bogus": not a valid selector operator/);
});
