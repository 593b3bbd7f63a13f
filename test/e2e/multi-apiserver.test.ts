import assert from 'node:assert/strict';
import { cp, mkdtemp } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { startEtcdCluster, type EtcdCluster } from '../../src/storage/etcd/testing/etcd-cluster.js';
import { removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

const NS = 'default';
const RESOURCE = `/api/v1/namespaces/${NS}/configmaps`;

/** HTTPS JSON access to several API servers with one admin identity (they share the CA). */
function adminAgent(kubeconfig: string): https.Agent {
  const kc = parse(readFileSync(kubeconfig, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const b64 = (s: string) => Buffer.from(s, 'base64');
  return new https.Agent({
    keepAlive: true,
    ca: b64(kc.clusters[0]!.cluster['certificate-authority-data']),
    cert: b64(kc.users[0]!.user['client-certificate-data']),
    key: b64(kc.users[0]!.user['client-key-data']),
  });
}

function request(agent: https.Agent, port: number, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = https.request({ host: '127.0.0.1', port, method, path, agent, timeout: 5000, headers: { 'content-type': 'application/json', ...(data ? { 'content-length': data.length } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown> });
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(data);
  });
}

interface SeenEvent {
  type: string;
  name: string;
  rv: number;
}

/**
 * A watcher that follows configmaps from a resourceVersion through whichever
 * API server is alive, reconnecting from the last resourceVersion it saw.
 */
class Follower {
  readonly events: SeenEvent[] = [];
  reconnects = 0;
  private current: ReturnType<typeof https.request> | undefined;
  private stopped = false;

  constructor(
    private readonly agent: https.Agent,
    private readonly ports: () => number[],
    private rv: number,
    private preferred: number,
  ) {}

  async run(): Promise<void> {
    while (!this.stopped) {
      const ports = this.ports();
      const port = ports[this.preferred % ports.length]!;
      try {
        await this.follow(port);
      } catch {
        // the server died or closed the watch: go on from the last resourceVersion, elsewhere if need be
      }
      if (this.stopped) return;
      this.reconnects++;
      this.preferred++;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  stop(): void {
    this.stopped = true;
    this.current?.destroy();
  }

  private follow(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, method: 'GET', path: `${RESOURCE}?watch=true&resourceVersion=${this.rv}&allowWatchBookmarks=true`, agent: this.agent }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`watch answered ${res.statusCode}`));
          return;
        }
        let buffered = '';
        res.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          let nl;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            if (!line.trim()) continue;
            const ev = JSON.parse(line) as { type: string; object: { metadata: { name: string; resourceVersion: string } } };
            if (ev.type === 'ERROR') {
              reject(new Error(`watch error: ${line}`));
              req.destroy();
              return;
            }
            const rv = Number(ev.object.metadata.resourceVersion);
            if (ev.type !== 'BOOKMARK') this.events.push({ type: ev.type, name: ev.object.metadata.name, rv });
            this.rv = Math.max(this.rv, rv);
          }
        });
        res.on('end', resolve);
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('aborted')));
      });
      req.on('error', reject);
      req.end();
      this.current = req;
    });
  }
}

describe('three API servers on a three-member etcd', () => {
  let etcd: EtcdCluster;
  const servers: ServerProcess[] = [];
  let agent: https.Agent;

  before(async () => {
    etcd = await startEtcdCluster({ size: 3 });
    const first = await startServer({ command: 'apiserver', args: ['--storage', etcd.storageUrl] });
    servers.push(first);
    // One CA for all: the others start from a copy of the first one's pki, so one identity works everywhere.
    const others = await Promise.all([1, 2].map(async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'skiff-e2e-'));
      await cp(join(first.dataDir, 'pki'), join(dataDir, 'pki'), { recursive: true });
      return startServer({ command: 'apiserver', dataDir, args: ['--storage', etcd.storageUrl] });
    }));
    servers.push(...others);
    agent = adminAgent(first.kubeconfig);
  });
  after(async () => {
    agent?.destroy();
    for (const server of servers) {
      await server.stop();
      await removeDir(server.dataDir);
    }
    await etcd?.stop();
  });

  /**
   * What each server went through, for a failure's message (a refused
   * connection once hid a server's early exit). A server that died without
   * the test killing it comes first with the end of its log; CI shows only
   * the start of a long message.
   */
  const serverStates = () => {
    const state = (s: ServerProcess) => s.proc.exitCode ?? s.proc.signalCode ?? 'none (running)';
    const unexpected = servers.map((s, i) => ({ s, i })).filter(({ s, i }) => !(i === 0 && s.proc.signalCode === 'SIGKILL') && state(s) !== 'none (running)');
    const first = unexpected.map(({ s, i }) => `server ${i} on port ${s.port} DIED: exit ${state(s)}\n${s.logs().slice(-4000)}`);
    const rest = servers.map((s, i) => `server ${i} on port ${s.port}: exit ${state(s)}, last log lines:\n${s.logs().slice(-1000)}`);
    return [...first, ...rest].join('\n');
  };

  it('keeps every acknowledged write and every watcher sees every event in order across a member and a server dying', async (t) => {
    try {
      await writesAndWatchesSurvive(t);
    } catch (err) {
      if (err instanceof Error) err.message += `\n${serverStates()}`;
      throw err;
    }
  });

  async function writesAndWatchesSurvive(t: { after: (fn: () => void) => void }): Promise<void> {
    for (const server of servers) assert.ok(server.proc.exitCode === null);
    // A write through one server is seen through another.
    const probe = await request(agent, servers[0]!.port, 'POST', RESOURCE, { metadata: { name: 'probe' }, data: { a: '1' } });
    assert.equal(probe.status, 201, JSON.stringify(probe.json));
    const got = await request(agent, servers[2]!.port, 'GET', `${RESOURCE}/probe`);
    assert.equal(got.status, 200);
    const startRv = Number((probe.json.metadata as { resourceVersion: string }).resourceVersion);

    const alive = new Set([0, 1, 2]);
    const livePorts = () => servers.filter((_, i) => alive.has(i)).map((s) => s.port);
    const followers = [0, 1, 2].map((i) => new Follower(agent, livePorts, startRv, i));
    const following = followers.map((f) => f.run());
    // A failed assertion must not leave the followers reconnecting forever (the run would never end).
    t.after(() => {
      for (const f of followers) f.stop();
    });

    const acked = new Map<string, number>();
    let stopWriting = false;
    const writer = async (w: number) => {
      for (let n = 0; !stopWriting; n++) {
        const name = `w${w}-${n}`;
        for (let attempt = 0; !stopWriting; attempt++) {
          const ports = livePorts();
          const port = ports[(w + attempt) % ports.length]!;
          try {
            const res = await request(agent, port, 'POST', RESOURCE, { metadata: { name }, data: { n: String(n) } });
            if (res.status === 201) {
              acked.set(name, Number((res.json.metadata as { resourceVersion: string }).resourceVersion));
              break;
            }
            // An earlier attempt may have been applied without an answer: then the object is there.
            if (res.status === 409) break;
          } catch {
            // server gone: try another
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };
    const writing = [0, 1, 2].map((w) => writer(w));

    await waitFor('writes before the failures', () => acked.size >= 60, 20_000, 20);
    await etcd.kill(0);
    alive.delete(0);
    await servers[0]!.stop('SIGKILL');
    const ackedAtFailure = acked.size;
    await waitFor('writes after the failures', () => acked.size >= ackedAtFailure + 60, 30_000, 20);
    stopWriting = true;
    await Promise.all(writing);

    const final = await request(agent, servers[1]!.port, 'GET', RESOURCE);
    assert.equal(final.status, 200);
    const listed = (final.json.items as { metadata: { name: string; resourceVersion: string } }[]).map((i) => i.metadata);
    const items = listed.map((m) => m.name);
    for (const name of acked.keys()) assert.ok(items.includes(name), `acknowledged write ${name} is missing`);
    // Only creates happen, so the newest object's resourceVersion is the last event every watcher must reach.
    const lastRv = Math.max(...listed.map((m) => Number(m.resourceVersion)));

    await waitFor('every watcher to catch up', () => followers.every((f) => f.events.at(-1)?.rv === lastRv), 20_000, 50);
    for (const f of followers) f.stop();
    await Promise.all(following);

    const reference = followers.map((f) => f.events).sort((a, b) => b.length - a.length)[0]!;
    for (const [i, f] of followers.entries()) {
      const rvs = f.events.map((e) => e.rv);
      for (let j = 1; j < rvs.length; j++) assert.ok(rvs[j]! > rvs[j - 1]!, `watcher ${i}: resourceVersions not strictly increasing at ${j}: ${rvs[j - 1]} then ${rvs[j]}`);
      assert.deepEqual(f.events, reference, `watcher ${i} saw a different event sequence (reconnects: ${f.reconnects})`);
      const added = new Set(f.events.filter((e) => e.type === 'ADDED').map((e) => e.name));
      for (const [name, rv] of acked) assert.ok(added.has(name), `watcher ${i} missed ADDED ${name} at ${rv}`);
    }
    assert.ok(followers[0]!.reconnects >= 1, 'the watcher on the killed server had to reconnect');
  }
});
