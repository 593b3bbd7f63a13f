import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '../../client/rest/client.js';
import { notFound } from '../../machinery/api-error.js';
import { OwnerKinds } from './owner-kinds.js';

function fakeClient(served: Record<string, { name: string; kind: string; namespaced: boolean }[]>): { client: Client; asked: string[] } {
  const asked: string[] = [];
  const client = {
    rest: {
      request: ({ path }: { path: string }) => {
        asked.push(path);
        const resources = served[path];
        if (!resources) return Promise.reject(notFound({ group: '', resource: '' }, path));
        return Promise.resolve({ resources });
      },
    },
  } as unknown as Client;
  return { client, asked };
}

test('built-in kinds come from the table without a request', async () => {
  const { client, asked } = fakeClient({});
  const owners = new OwnerKinds(client, { now: () => 0 });
  assert.deepEqual(await owners.resolve('apps/v1', 'Deployment', AbortSignal.timeout(5000)).then((r) => r && [r.resource, r.namespaced]), ['deployments', true]);
  assert.deepEqual(asked, []);
});

test('custom kinds are found by discovery, subresources skipped, answers cached for 30 s', async () => {
  const { client, asked } = fakeClient({
    '/apis/examples.skiff.dev/v1': [
      { name: 'webapps/status', kind: 'WebApp', namespaced: true },
      { name: 'webapps', kind: 'WebApp', namespaced: true },
    ],
  });
  let now = 0;
  const owners = new OwnerKinds(client, { now: () => now });
  const signal = AbortSignal.timeout(5000);
  assert.deepEqual(await owners.resolve('examples.skiff.dev/v1', 'WebApp', signal), { group: 'examples.skiff.dev', version: 'v1', resource: 'webapps', namespaced: true });
  await owners.resolve('examples.skiff.dev/v1', 'WebApp', signal);
  assert.equal(asked.length, 1);
  now = 30_001;
  await owners.resolve('examples.skiff.dev/v1', 'WebApp', signal);
  assert.equal(asked.length, 2);
});

test('a group nobody serves, or a kind it does not have, resolves to nothing', async () => {
  const { client } = fakeClient({ '/apis/examples.skiff.dev/v1': [{ name: 'webapps', kind: 'WebApp', namespaced: true }] });
  const owners = new OwnerKinds(client, { now: () => 0 });
  const signal = AbortSignal.timeout(5000);
  assert.equal(await owners.resolve('gone.skiff.dev/v1', 'Thing', signal), undefined);
  assert.equal(await owners.resolve('examples.skiff.dev/v1', 'Other', signal), undefined);
});
