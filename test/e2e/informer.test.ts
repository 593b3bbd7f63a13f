import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { removeDir, startServer, waitFor, type ServerProcess } from './harness.js';
import { Client } from '../../src/client/rest/client.js';
import { loadKubeconfig } from '../../src/client/rest/kubeconfig.js';
import { SharedIndexInformer } from '../../src/client/cache/shared-informer.js';
import { listWatcherFor } from '../../src/client/cache/list-watcher.js';

const CMS = { group: '', version: 'v1', resource: 'configmaps' };

/** key → resourceVersion: what "the cache equals the server" compares. */
function snapshot(items: readonly { metadata?: { namespace?: string; name?: string; resourceVersion?: string } }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of items) out[`${o.metadata?.namespace}/${o.metadata?.name}`] = o.metadata?.resourceVersion ?? '';
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

describe('informer against skiff server', () => {
  let server: ServerProcess;
  let client: Client;
  const ac = new AbortController();

  before(async () => {
    server = await startServer({ command: 'apiserver' });
    client = new Client(loadKubeconfig(server.kubeconfig), { component: 'e2e' });
  });
  after(async () => {
    ac.abort();
    client?.close();
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  const cms = () => client.resource<ConfigMap>(CMS).namespace('default');

  it('survives a server restart and converges on a fresh list', async () => {
    for (let i = 0; i < 6; i++) await cms().create({ metadata: { name: `r${i}` }, data: { v: '0' } });
    const informer = new SharedIndexInformer<ConfigMap>({
      listerWatcher: listWatcherFor(cms()),
      reflector: { pageSize: 2, backoff: { initial: 200, max: 1000 } },
    });
    const run = informer.run(ac.signal);
    assert.equal(await informer.whenSynced(ac.signal), true);
    const deletes: string[] = [];
    informer.addEventHandler({ onDelete: (o) => deletes.push('key' in o ? o.key : `${o.metadata?.namespace}/${o.metadata?.name}`) });

    const port = server.port;
    await server.stop();
    server = await startServer({ command: 'apiserver', dataDir: server.dataDir, args: ['--port', String(port)] });
    // Mixed writes right after the restart, possibly before the informer reconnects.
    await cms().delete('r0');
    await cms().patch('r1', { data: { v: '1' } }, 'merge');
    await cms().create({ metadata: { name: 'after-restart' } });

    await waitFor('informer cache to equal a fresh list', async () => {
      const fresh = snapshot((await cms().list()).items);
      return JSON.stringify(snapshot(informer.indexer.list())) === JSON.stringify(fresh) ? true : undefined;
    });
    assert.ok(deletes.includes('default/r0'));
    ac.abort();
    await run;
  });

  it('agrees with @kubernetes/client-node informer after a mixed workload', async () => {
    const local = new AbortController();
    const ns = 'agree';
    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: ns } });
    const ours = new SharedIndexInformer<ConfigMap>({ listerWatcher: listWatcherFor(client.resource<ConfigMap>(CMS).namespace(ns)) });
    const run = ours.run(local.signal);

    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const theirs = k8s.makeInformer(kc, `/api/v1/namespaces/${ns}/configmaps`, () => core.listNamespacedConfigMap({ namespace: ns }));
    theirs.on('error', () => undefined);
    await theirs.start();
    await ours.whenSynced(local.signal);

    const api = client.resource<ConfigMap>(CMS).namespace(ns);
    for (let i = 0; i < 12; i++) await api.create({ metadata: { name: `m${i}`, labels: { i: String(i) } }, data: { v: '0' } });
    for (let i = 0; i < 12; i += 2) await api.patch(`m${i}`, { data: { v: 'patched' } }, 'merge');
    for (let i = 0; i < 12; i += 3) await api.delete(`m${i}`);
    const m1 = await api.get('m1');
    await api.update({ ...m1, data: { v: 'updated' } });

    const fresh = () => api.list().then((l) => JSON.stringify(snapshot(l.items)));
    await waitFor('both informers to match the server', async () => {
      const want = await fresh();
      return JSON.stringify(snapshot(ours.indexer.list())) === want && JSON.stringify(snapshot(theirs.list(ns))) === want ? true : undefined;
    });
    assert.equal(ours.lister.namespace(ns).get('m1')?.data?.v, 'updated');
    await theirs.stop();
    local.abort();
    await run;
  });
});
