import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestApiServer } from '../../testing/test-api-server.js';

/**
 * Duplicate keys are found in the body's text, with the key count of its
 * parse taken before the server fills in apiVersion, kind and namespace
 * (three keys here, as many as the body's duplicates: a count taken after
 * would miss them all).
 */
test('duplicate fields are found even when the server adds as many fields as the body repeats', async () => {
  const api = await startTestApiServer({ namespaces: ['dup'] });
  try {
    const base = '/api/v1/namespaces/dup/configmaps';
    const body = '{"metadata":{"name":"c","name":"c"},"data":{"a":"1","a":"2","b":"x:y","b" :"z"}}';
    await assert.rejects(api.client.rest.request({ method: 'POST', path: base, query: { fieldValidation: 'Strict' }, body }), (err: Error) => {
      assert.equal(
        err.message,
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", duplicate field "data.a", duplicate field "data.b"',
      );
      return true;
    });
    // Warn (the default) stores the object, last value winning, as upstream
    const created = await api.client.rest.request<{ data: Record<string, string> }>({ method: 'POST', path: base, body });
    assert.deepEqual(created.data, { a: '2', b: 'z' });
    // a clean body with colons and escaped quotes in its strings passes Strict
    const clean = '{"metadata":{"name":"d","annotations":{"a":"{\\"k:1\\":\\"t:2026-01-01T00:00:00Z\\"}"}},"data":{"q":"\\":\\""}}';
    const d = await api.client.rest.request<{ data: Record<string, string> }>({ method: 'POST', path: base, query: { fieldValidation: 'Strict' }, body: clean });
    assert.deepEqual(d.data, { q: '":"' });
  } finally {
    await api.stop();
  }
});
