import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientFromKubeconfig } from './raw-client.js';
import { removeDir, startServer, waitFor } from './harness.js';

interface Ack {
  name: string;
  rv: string;
}

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: name } });

for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
  describe(`durability across ${signal}`, () => {
    it('keeps every acknowledged write with its resourceVersion, and watchers resume without gaps', async () => {
      let server = await startServer({ command: 'apiserver' });
      const dataDir = server.dataDir;
      try {
        let client = clientFromKubeconfig(server.kubeconfig);
        const ns = await client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'd' } });
        assert.equal(ns.status, 201);
        const startRv = JSON.parse((await client.request('GET', '/api/v1/namespaces/d/configmaps')).body).metadata.resourceVersion as string;

        // a watcher that records every event it sees
        const seen: { type: string; name: string; rv: string }[] = [];
        const closeWatch = await client.watch(`/api/v1/namespaces/d/configmaps?watch=1&resourceVersion=${startRv}`, (ev) => {
          const meta = ev.object.metadata as { name: string; resourceVersion: string };
          seen.push({ type: ev.type, name: meta.name, rv: meta.resourceVersion });
        });

        // writers: 8 concurrent loops, stopped by the kill
        const acked: Ack[] = [];
        let stop = false;
        const writers = Array.from({ length: 8 }, async (_, w) => {
          for (let i = 0; !stop; i++) {
            const name = `w${w}-${i}`;
            try {
              const r = await client.request('POST', '/api/v1/namespaces/d/configmaps', configMap(name));
              if (r.status === 201) acked.push({ name, rv: JSON.parse(r.body).metadata.resourceVersion as string });
            } catch {
              return; // connection refused/reset: the server is gone
            }
          }
        });
        await waitFor('some acknowledged writes', () => acked.length >= 200);
        await server.stop(signal);
        stop = true;
        await Promise.all(writers);
        closeWatch();
        client.close();

        server = await startServer({ command: 'apiserver', dataDir });
        client = clientFromKubeconfig(server.kubeconfig);
        const list = JSON.parse((await client.request('GET', '/api/v1/namespaces/d/configmaps')).body) as { items: { metadata: { name: string; resourceVersion: string } }[] };
        const stored = new Map(list.items.map((i) => [i.metadata.name, i.metadata.resourceVersion]));
        for (const a of acked) assert.equal(stored.get(a.name), a.rv, `acknowledged ${a.name}@${a.rv} must survive`);

        // resume the watch from the last event seen before the kill: nothing is missing or repeated
        const lastRv = seen.length ? seen[seen.length - 1].rv : startRv;
        const resumed: { name: string; rv: string }[] = [];
        const close2 = await client.watch(`/api/v1/namespaces/d/configmaps?watch=1&resourceVersion=${lastRv}`, (ev) => {
          const meta = ev.object.metadata as { name: string; resourceVersion: string };
          resumed.push({ name: meta.name, rv: meta.resourceVersion });
        });
        try {
          await waitFor('the resumed watch to deliver every stored object', () => new Set([...seen, ...resumed].map((e) => e.name)).size >= stored.size, 20_000);
          const allEvents = [...seen, ...resumed];
          const rvs = allEvents.map((e) => Number(e.rv));
          for (let i = 1; i < rvs.length; i++) assert.ok(rvs[i] > rvs[i - 1], `resourceVersions strictly increase (${rvs[i - 1]} then ${rvs[i]})`);
          const names = new Set(allEvents.map((e) => e.name));
          for (const name of stored.keys()) assert.ok(names.has(name), `the watchers saw ${name}`);
          assert.ok(allEvents.length > 0);
        } finally {
          close2();
          client.close();
        }
      } finally {
        await server.stop();
        await removeDir(dataDir);
      }
    });
  });
}
