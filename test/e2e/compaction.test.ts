import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clientFromKubeconfig } from './raw-client.js';
import { removeDir, startServer, type ServerProcess } from './harness.js';

const RENEWALS = 4000;

async function sizeOf(path: string): Promise<number> {
  return stat(path).then((s) => s.size, () => 0);
}

/**
 * A Lease renewed over and over (a kubelet's heartbeat, sped up) must not make
 * the SQLite file grow without bound: compaction keeps one interval of history.
 */
describe('storage compaction under steady churn', () => {
  let server: ServerProcess;
  before(async () => {
    server = await startServer({ command: 'apiserver', args: ['--compaction-interval', '1'] });
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it(`keeps the database small while a Lease is renewed ${RENEWALS} times`, async () => {
    const client = clientFromKubeconfig(server.kubeconfig, 4);
    try {
      const padding = 'x'.repeat(2048); // ~2.8 KB per revision: 4,000 revisions would be ~11 MB uncompacted
      const path = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
      const created = await client.request('POST', path, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'beat', annotations: { padding } }, spec: { holderIdentity: 'a', leaseDurationSeconds: 40 } });
      assert.equal(created.status, 201, created.body);
      // renewals are paced (at most 250/s, a heartbeat sped up 250×): how much history a
      // compaction interval holds depends on the write rate, so the rate must be bounded
      const t0 = Date.now();
      for (let i = 0; i < RENEWALS; i++) {
        const due = t0 + i * 4;
        if (Date.now() < due) await new Promise((r) => setTimeout(r, due - Date.now()));
        const renewTime = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
        const r = await client.send('PATCH', `${path}/beat`, Buffer.from(JSON.stringify({ spec: { renewTime } })), { 'Content-Type': 'application/merge-patch+json', Accept: 'application/json' });
        assert.equal(r.status, 200, r.body);
      }
      const db = join(server.dataDir, 'state.db');
      const [dbSize, walSize] = [await sizeOf(db), await sizeOf(`${db}-wal`)];
      const what = `database ${(dbSize / 1024) | 0} KiB and WAL ${(walSize / 1024) | 0} KiB after ${RENEWALS} renewals`;
      // uncompacted, the table alone would hold ~11 MB; compacted, about two intervals of history plus as
      // many free pages kept for reuse (~3 MB at 250 writes/s); the WAL is bounded by the auto-checkpoint
      assert.ok(dbSize < 5 * 1024 * 1024, what);
      assert.ok(walSize < 5 * 1024 * 1024, what);
      const metrics = await client.request('GET', '/metrics');
      assert.match(metrics.body, /apiserver_storage_request_duration_seconds_count\{operation="compact"\} [1-9]/);
    } finally {
      client.close();
    }
  });
});
