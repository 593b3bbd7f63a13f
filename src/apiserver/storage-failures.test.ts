import assert from 'node:assert/strict';
import https from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Cacher } from '../storage/cacher/cacher.js';
import { UnavailableError } from '../storage/errors.js';
import { SqliteStorage } from '../storage/sqlite/index.js';
import type { Storage } from '../storage/storage.js';
import { startInProcessServer, type InProcessServer } from './in-process-server.test-util.js';

/** Storage that can be switched off: every call fails as an unreachable backend's would. */
function switchable(storage: Storage): { storage: Storage; setAvailable(up: boolean): void } {
  let available = true;
  const wrapped = new Proxy(storage, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function' || prop === 'close' || prop === 'watch') return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => (available ? (value as (...a: unknown[]) => unknown).apply(target, args) : Promise.reject(new UnavailableError('connection refused')));
    },
  });
  return { storage: wrapped, setAvailable: (up) => void (available = up) };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('storage failures become upstream Statuses', () => {
  let srv: InProcessServer;
  let toggle: ReturnType<typeof switchable>;

  before(async () => {
    srv = await startInProcessServer({
      storage: (dir) => {
        toggle = switchable(SqliteStorage.open({ path: join(dir, 'state.db') }));
        return new Cacher(toggle.storage, { watcherBufferSize: 20 });
      },
    });
  });
  after(() => srv.stop());

  it('storage unavailable: requests are 503 and /readyz fails; both recover when storage returns', async () => {
    assert.equal((await srv.request('GET', '/readyz', { client: null })).status, 200);
    toggle.setAvailable(false);
    try {
      const get = await srv.request('GET', '/api/v1/namespaces/default/configmaps/x');
      assert.equal(get.status, 503, get.text);
      assert.equal(get.json().reason, 'ServiceUnavailable');
      assert.equal(get.headers['retry-after'], '1');
      const write = await srv.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'x' } } });
      assert.equal(write.status, 503, write.text);
      const ready = await srv.request('GET', '/readyz?verbose', { client: null });
      assert.equal(ready.status, 500);
      assert.match(ready.text, /\[-\]etcd failed: reason withheld/);
      assert.equal((await srv.request('GET', '/healthz/ping', { client: null })).status, 200);
    } finally {
      toggle.setAvailable(true);
    }
    await until('readyz to pass again', async () => (await srv.request('GET', '/readyz', { client: null })).status === 200);
    assert.equal((await srv.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'x' } } })).status, 201);
  });

  it('a compacted resourceVersion is 410 Expired with upstream text, for lists and watches', async () => {
    const first = await srv.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'old' } } });
    const oldRv = (first.json().metadata as { resourceVersion: string }).resourceVersion;
    for (let i = 0; i < 3; i++) await srv.request('PUT', '/api/v1/namespaces/default/configmaps/old', { body: { metadata: { name: 'old' }, data: { i: String(i) } } });
    await srv.storage.compact(await srv.storage.currentRevision());
    const list = await srv.request('GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${oldRv}&resourceVersionMatch=Exact`);
    assert.equal(list.status, 410, list.text);
    assert.equal(list.json().message, 'The resourceVersion for the provided list is too old.');
    const watch = await srv.request('GET', `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${oldRv}&timeoutSeconds=5`);
    // the watch has started (200) when storage reports the compaction: an ERROR event carries the 410
    const event = JSON.parse(watch.text.trim().split('\n')[0]) as { type: string; object: { code: number; reason: string; message: string } };
    assert.equal(event.type, 'ERROR');
    assert.deepEqual([event.object.code, event.object.reason], [410, 'Expired']);
    assert.match(event.object.message, new RegExp(`^too old resource version: ${oldRv} \\(\\d+\\)$`));
  });

  it('a watcher that stops reading is closed cleanly; other watchers get every event', async () => {
    const watchPath = '/api/v1/namespaces/default/configmaps?watch=1&labelSelector=batch%3Dslow';
    const count = 200;
    // the slow client never reads until the burst is over
    const slow = await openWatch(srv, watchPath);
    slow.res.pause();
    const fast = await openWatch(srv, watchPath);
    const fastLines: string[] = [];
    fast.onLine((line) => fastLines.push(line));
    const big = 'x'.repeat(64 * 1024);
    for (let i = 0; i < count; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          srv.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `slow-${i + j}`, labels: { batch: 'slow' } }, data: { big } } }),
        ),
      );
    }
    await until('the reading watcher to see every event', async () => fastLines.length >= count, 60_000);
    assert.equal(fastLines.length, count);
    assert.ok(fastLines.every((l) => l.startsWith('{"type":"ADDED"')));
    // now the slow client reads: what was in flight, then the end of the stream, without an ERROR event
    const slowLines: string[] = [];
    slow.onLine((line) => slowLines.push(line));
    slow.res.resume();
    await slow.ended;
    assert.ok(slowLines.length < count, `the slow watcher was not closed (it got all ${slowLines.length} events)`);
    assert.ok(slowLines.every((l) => l.startsWith('{"type":"ADDED"')), `unexpected event: ${slowLines.find((l) => !l.startsWith('{"type":"ADDED"'))?.slice(0, 200)}`);
    // the server still serves watches and writes
    assert.equal((await srv.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'after', labels: { batch: 'slow' } } } })).status, 201);
    await until('the reading watcher to see the next event', async () => fastLines.length === count + 1);
    fast.req.destroy();
  });
});

interface OpenWatch {
  req: ReturnType<typeof https.request>;
  res: import('node:http').IncomingMessage;
  onLine(fn: (line: string) => void): void;
  ended: Promise<void>;
}

/** A raw watch request (no client library buffering in between). */
function openWatch(srv: InProcessServer, path: string): Promise<OpenWatch> {
  const { port } = srv;
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, method: 'GET', ...srv.tlsOptions(), headers: { Accept: 'application/json' } }, (res) => {
      let buffer = '';
      let handler: ((line: string) => void) | undefined;
      const pending: string[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let i: number;
        while ((i = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, i);
          buffer = buffer.slice(i + 1);
          if (handler) handler(line);
          else pending.push(line);
        }
      });
      const ended = new Promise<void>((r, j) => {
        res.on('end', () => r());
        res.on('error', j);
      });
      // a watch the test destroys on purpose ends with an abort nobody waits for
      ended.catch(() => {});
      resolve({
        req,
        res,
        ended,
        onLine(fn) {
          handler = fn;
          for (const line of pending.splice(0)) fn(line);
        },
      });
    });
    req.on('error', reject);
    req.end();
  });
}
