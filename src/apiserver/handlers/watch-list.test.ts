import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startInProcessServer, type InProcessServer } from '../in-process-server.test-util.js';

interface Event {
  type: string;
  object: { metadata: { name?: string; resourceVersion?: string; annotations?: Record<string, string> } };
}

/** Opens a watch and hands back its events as they arrive. */
function openWatch(s: InProcessServer, query: string): { next(): Promise<Event>; close(): void } {
  const queue: Event[] = [];
  const waiters: ((e: Event) => void)[] = [];
  let buffer = '';
  const req = https.get({ host: '127.0.0.1', port: s.port, path: `/api/v1/namespaces/default/configmaps?${query}`, ...s.tlsOptions() }, (res) => {
    res.on('data', (d: Buffer) => {
      buffer += d.toString();
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const e = JSON.parse(buffer.slice(0, nl)) as Event;
        buffer = buffer.slice(nl + 1);
        const w = waiters.shift();
        if (w) w(e);
        else queue.push(e);
      }
    });
  });
  req.on('error', () => {});
  return {
    next: () => (queue.length ? Promise.resolve(queue.shift()!) : new Promise((resolve) => waiters.push(resolve))),
    close: () => req.destroy(),
  };
}

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });

describe('watch-lists (sendInitialEvents)', () => {
  let s: InProcessServer;
  before(async () => {
    s = await startInProcessServer();
    for (const name of ['a', 'b']) assert.equal((await s.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap(name) })).status, 201);
  });
  after(() => s?.stop());

  it('streams the state, then a bookmark annotated k8s.io/initial-events-end at the state’s resourceVersion, then changes', async () => {
    const listed = (await s.request('GET', '/api/v1/namespaces/default/configmaps')).json() as { metadata: { resourceVersion: string } };
    const w = openWatch(s, 'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true');
    try {
      const initial = [await w.next(), await w.next()];
      assert.deepEqual(initial.map((e) => [e.type, e.object.metadata.name]).sort(), [['ADDED', 'a'], ['ADDED', 'b']]);
      const end = await w.next();
      assert.equal(end.type, 'BOOKMARK');
      assert.deepEqual(end.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
      assert.ok(Number(end.object.metadata.resourceVersion) >= Number(listed.metadata.resourceVersion));
      await s.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('c') });
      const added = await w.next();
      assert.deepEqual([added.type, added.object.metadata.name], ['ADDED', 'c']);
      assert.ok(Number(added.object.metadata.resourceVersion) > Number(end.object.metadata.resourceVersion));
    } finally {
      w.close();
    }
  });

  it('at a resourceVersion, the state is at least that new; without bookmarks there is no end marker', async () => {
    const rv = ((await s.request('GET', '/api/v1/namespaces/default/configmaps')).json() as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const w = openWatch(s, `watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=${rv}`);
    try {
      const names = [(await w.next()).object.metadata.name, (await w.next()).object.metadata.name, (await w.next()).object.metadata.name].sort();
      assert.deepEqual(names, ['a', 'b', 'c']);
      await s.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('d') });
      const next = await w.next();
      assert.deepEqual([next.type, next.object.metadata.name], ['ADDED', 'd']);
    } finally {
      w.close();
    }
  });

  it('sendInitialEvents=false without a resourceVersion sends only what changes from now on', async () => {
    const w = openWatch(s, 'watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan');
    try {
      // changes made before the watch registered are not its to send: keep changing until one arrives
      const first = w.next();
      let arrived: Event | undefined;
      for (let i = 0; !arrived && i < 50; i++) {
        await s.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap(`e${i}`) });
        arrived = await Promise.race([first, new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))]);
      }
      assert.ok(arrived, 'no event arrived');
      assert.equal(arrived.type, 'ADDED');
      assert.match(arrived.object.metadata.name ?? '', /^e\d+$/);
    } finally {
      w.close();
    }
  });

  it('refuses sendInitialEvents without resourceVersionMatch=NotOlderThan', async () => {
    const r = await s.request('GET', '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true');
    assert.equal(r.status, 422);
    assert.match(String(r.json().message), /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/);
  });
});
