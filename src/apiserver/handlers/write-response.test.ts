import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestApiServer } from '../../testing/test-api-server.js';

/**
 * A write answers with the bytes it stored (resourceVersion spliced in), not
 * a second encoding: the answer must be exactly what a GET of the same
 * version returns, in Go's form (HTML characters escaped, field order).
 */
test('create, update and patch answer with the stored object, byte for byte as a GET', async () => {
  const api = await startTestApiServer({ namespaces: ['w'] });
  try {
    const base = '/api/v1/namespaces/w/configmaps';
    const send = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
      const text = await api.client.rest.stream({ method: method as 'GET', path, body, contentType }).then(async (res) => {
        let s = '';
        for await (const chunk of res) s += String(chunk);
        return s;
      });
      return text;
    };
    const created = await send('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: 'b' } }, data: { html: '<a href="x">&</a>' } });
    assert.match(created, /\\u003ca href=/, 'HTML characters escaped as Go does');
    assert.equal(created, await send('GET', `${base}/c`));
    const obj = JSON.parse(created) as { metadata: { resourceVersion: string } };
    const updated = await send('PUT', `${base}/c`, { ...obj, data: { k: 'v' } });
    assert.notEqual(JSON.parse(updated).metadata.resourceVersion, obj.metadata.resourceVersion);
    assert.equal(updated, await send('GET', `${base}/c`));
    const patched = await send('PATCH', `${base}/c`, { data: { k2: 'v2' } }, 'application/merge-patch+json');
    assert.deepEqual(JSON.parse(patched).data, { k: 'v', k2: 'v2' });
    assert.equal(patched, await send('GET', `${base}/c`));
    // ?pretty and other representations are still rendered
    assert.match(await send('GET', `${base}/c?pretty=true`), /\n {2}"kind": "ConfigMap"/);
  } finally {
    await api.stop();
  }
});
