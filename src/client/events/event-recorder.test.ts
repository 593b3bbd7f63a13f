import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Event, Pod } from 'kubernetes-types/core/v1.js';
import { FaultProxy } from '../../testing/fault-proxy.js';
import { TestObjects } from '../../testing/objects.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { Client } from '../rest/client.js';
import { EventRecorder } from './event-recorder.js';
import { SpamFilter } from './spam-filter.js';
import { EVENTS } from '../../api/resource-refs.js';
import { FakeClock } from '../../base/fake-clock.js';

let api: TestApiServer;
let server: FaultProxy;
let client: Client;
before(async () => {
  api = await startTestApiServer({ namespaces: ['ns'] });
  server = new FaultProxy(api);
  client = new Client({ server: await server.start(), qps: -1 });
});
after(async () => {
  client.close();
  await server.close();
  await api.stop();
});

const pod = (name: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', uid: `uid-${name}` } });
const events = (): Promise<Event[]> => new TestObjects(api.client).list<Event>(EVENTS);

test('records in the background, aggregates identical events, names like upstream', async () => {
  const clock = new FakeClock(Date.parse('2024-05-01T10:00:00Z'));
  const rec = new EventRecorder({ client, component: 'test-controller', host: 'node-1', clock });
  // the recorder's writes wait at the proxy while we look: event() must have returned without them
  const release = server.hold((r) => r.url.pathname.includes('/events'));
  rec.event(pod('web'), 'Normal', 'Scheduled', 'assigned to n1');
  assert.equal((await events()).length, 0, 'event() does not wait for the API');
  release();
  await rec.flush();
  clock.set(clock.now() + 5000);
  rec.event(pod('web'), 'Normal', 'Scheduled', 'assigned to n1');
  rec.event(pod('web'), 'Warning', 'Failed', 'boom');
  await rec.flush();
  const all = (await events()).sort((a, b) => (a.reason! < b.reason! ? -1 : 1));
  assert.equal(all.length, 2);
  const [failed, scheduled] = all;
  assert.equal(scheduled.count, 2);
  assert.equal(scheduled.firstTimestamp, '2024-05-01T10:00:00Z');
  assert.equal(scheduled.lastTimestamp, '2024-05-01T10:00:05Z');
  assert.match(scheduled.metadata?.name ?? '', /^web\.[0-9a-f]+$/);
  assert.deepEqual(scheduled.source, { component: 'test-controller', host: 'node-1' });
  assert.equal(scheduled.involvedObject.uid, 'uid-web');
  assert.equal(scheduled.metadata?.namespace, 'ns');
  assert.equal(failed.type, 'Warning');
  assert.equal(failed.count, 1);
  assert.ok(server.requests.some((r) => r.method === 'PATCH' && r.url.pathname.startsWith('/api/v1/namespaces/ns/events/web.')));

  // The aggregated event was deleted on the server: the next repeat creates a new one.
  await new TestObjects(api.client).erase(EVENTS, 'ns', scheduled.metadata!.name!);
  rec.event(pod('web'), 'Normal', 'Scheduled', 'assigned to n1');
  await rec.stop();
  assert.equal((await events()).filter((e) => e.reason === 'Scheduled').length, 1);
  rec.event(pod('web'), 'Normal', 'Ignored', 'after stop');
  await rec.flush();
  assert.equal((await events()).filter((e) => e.reason === 'Ignored').length, 0);
});

test('per-object spam filter: burst 25, then one per refill interval', async () => {
  const clock = new FakeClock(0);
  const f = new SpamFilter({ clock });
  let allowed = 0;
  for (let i = 0; i < 30; i++) if (f.allow('obj')) allowed++;
  assert.equal(allowed, 25);
  assert.equal(f.allow('other'), true);
  clock.set(clock.now() + 300_000);
  assert.equal(f.allow('obj'), true);
  assert.equal(f.allow('obj'), false);

  const rec = new EventRecorder({ client, component: 'spam', spamFilter: { burst: 3 } });
  for (let i = 0; i < 10; i++) rec.event(pod('noisy'), 'Normal', 'R', `m${i}`);
  await rec.flush();
  assert.equal((await events()).filter((e) => e.involvedObject.name === 'noisy').length, 3);
});

test('similar events (same object, type, reason) beyond 10 distinct messages are combined into one', async () => {
  const clock = new FakeClock(Date.parse('2024-05-01T10:00:00Z'));
  const rec = new EventRecorder({ client, component: 'agg', clock, spamFilter: { burst: 100 } });
  for (let i = 0; i < 25; i++) {
    clock.set(clock.now() + 1000);
    rec.event(pod('chatty'), 'Warning', 'BackOff', `restart ${i}`);
  }
  rec.event(pod('chatty'), 'Warning', 'Other', 'different reason'); // not similar: its own event
  await rec.flush();
  const mine = (await events()).filter((e) => e.involvedObject.name === 'chatty');
  const backoff = mine.filter((e) => e.reason === 'BackOff');
  // Nine individual events, then one combined event counting the other sixteen.
  assert.equal(backoff.length, 10);
  const combined = backoff.filter((e) => e.message?.startsWith('(combined from similar events): '));
  assert.equal(combined.length, 1);
  assert.equal(combined[0].count, 16);
  assert.equal(combined[0].message, '(combined from similar events): restart 24');
  assert.equal(backoff.filter((e) => e.count === 1).length, 9);
  assert.equal(mine.filter((e) => e.reason === 'Other').length, 1);

  // Ten minutes of quiet close the group: the next message is recorded on its own again.
  clock.set(clock.now() + 11 * 60_000);
  rec.event(pod('chatty'), 'Warning', 'BackOff', 'restart late');
  await rec.stop();
  assert.ok((await events()).some((e) => e.message === 'restart late' && e.count === 1));
});
