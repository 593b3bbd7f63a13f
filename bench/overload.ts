import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlFor, removeDir, startServer, type ServerProcess } from '../test/e2e/harness.js';
import { RAISED_FD_LIMIT, rssBytes, spawnIdleWatchHolder } from '../test/e2e/support/idle-watches.js';
import { fmt, percentile } from './stats.js';

/**
 * `npm run bench -- overload`: one `skiff apiserver` with API Priority and
 * Fairness as shipped (upstream's bootstrap configuration):
 * 1. the server's memory per idle watch (BENCH_IDLE_WATCHES, 10,000);
 * 2. the request rate at which 429s begin: one token user (global-default
 *    priority level, one flow) lists ConfigMaps open-loop at a rising rate;
 * 3. the admin's p99 for `GET /api/v1/nodes` (what `kubectl get nodes` sends)
 *    before and during a flood of that user.
 * Figures depend on the machine: the load average is printed beside them.
 */
const STEP_SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 3);
const RATES = (process.env.BENCH_RATES ?? '50,100,200,400,800,1600,3200').split(',').filter(Boolean).map(Number);
const FLOOD_CLIENTS = Number(process.env.BENCH_FLOOD_CLIENTS ?? 500);
const IDLE_WATCHES = Number(process.env.BENCH_IDLE_WATCHES ?? 10_000);
const ADMIN_SAMPLES = 100;
const NEW_CONNECTION_SAMPLES = 10;
/** A directory for the server's CPU profile (node --cpu-prof), to see what dominates under the flood. */
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;

interface Answer {
  status: number;
  ms: number;
  /** Whether the request opened a connection (TCP and TLS handshakes) rather than reusing a kept-alive one. */
  newConnection?: boolean;
}

function requester(server: ServerProcess, maxSockets: number) {
  const pki = join(server.dataDir, 'pki');
  const ca = readFileSync(join(pki, 'ca.crt'));
  const admin = new https.Agent({ keepAlive: true, maxSockets: 4, ca, cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) });
  // every connection kept (Node drops free ones past 256 by default, and the flood would reconnect: TLS handshakes for each)
  const users = new https.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, ca });
  const send = (agent: https.Agent, path: string, headers: Record<string, string> = {}) =>
    new Promise<Answer>((resolve) => {
      const started = performance.now();
      const req = https
        .get({ host: '127.0.0.1', port: server.port, path, agent, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, newConnection: !req.reusedSocket }));
          res.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
        })
        .on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    });
  return {
    asAdmin: (path: string) => send(admin, path),
    adminText: (path: string) =>
      new Promise<string>((resolve) => {
        https
          .get({ host: '127.0.0.1', port: server.port, path, agent: admin }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => resolve(text));
            res.on('error', () => resolve(text));
          })
          .on('error', () => resolve(''));
      }),
    asFlooder: (path: string) => send(users, path, { Authorization: 'Bearer flood-token' }),
    close() {
      admin.destroy();
      users.destroy();
    },
  };
}

const FLOOD_PATH = '/api/v1/namespaces/default/configmaps';

/** Offers `rate` requests a second for STEP_SECONDS, whatever the answers; returns every answer and the seconds until the last. */
async function openLoop(send: () => Promise<Answer>, rate: number): Promise<{ answers: Answer[]; seconds: number }> {
  const answers: Promise<Answer>[] = [];
  const started = performance.now();
  // by elapsed time, not by tick count: a timer on a loaded machine fires late
  for (let elapsed = 0; elapsed < STEP_SECONDS * 1000; elapsed = performance.now() - started) {
    const due = Math.min(rate * STEP_SECONDS, Math.floor((rate * elapsed) / 1000));
    while (answers.length < due) answers.push(send());
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  while (answers.length < rate * STEP_SECONDS) answers.push(send());
  const all = await Promise.all(answers);
  return { answers: all, seconds: (performance.now() - started) / 1000 };
}

/**
 * The admin's samples from a process of its own, as `kubectl get nodes` is:
 * measured in this process they would include the time this event loop,
 * busy with 500 flooding clients, took to notice each answer.
 */
function adminLatenciesApart(server: ServerProcess): Promise<{ p50: number; p99: number; max: number; failed: number; connections: number; newConnection: { p50: number; max: number } }> {
  const pki = join(server.dataDir, 'pki');
  const script = `
    import https from 'node:https';
    import { readFileSync } from 'node:fs';
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: readFileSync(${JSON.stringify(join(pki, 'ca.crt'))}), cert: readFileSync(${JSON.stringify(join(pki, 'admin.crt'))}), key: readFileSync(${JSON.stringify(join(pki, 'admin.key'))}) });
    const out = [];
    // the first ${NEW_CONNECTION_SAMPLES} on a new connection each (TCP and TLS handshakes first, as each kubectl run), then on one kept alive
    for (let i = 0; i < ${ADMIN_SAMPLES + NEW_CONNECTION_SAMPLES}; i++) {
      out.push(await new Promise((resolve) => {
        const started = performance.now();
        const req = https.get({ host: '127.0.0.1', port: ${server.port}, path: '/api/v1/nodes', agent: i < ${NEW_CONNECTION_SAMPLES} ? new https.Agent({ ...agent.options, keepAlive: false }) : agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started, newConnection: !req.reusedSocket }));
        }).on('error', () => resolve({ status: 0, ms: performance.now() - started }));
      }));
    }
    agent.destroy();
    process.stdout.write(JSON.stringify(out));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('error', reject);
    child.on('exit', () => {
      try {
        const all = JSON.parse(text) as Answer[];
        const fresh = all.slice(0, NEW_CONNECTION_SAMPLES).map((a) => a.ms);
        const answers = all.slice(NEW_CONNECTION_SAMPLES);
        const ms = answers.map((a) => a.ms);
        resolve({
          p50: percentile(ms, 50),
          p99: percentile(ms, 99),
          max: Math.max(...ms),
          failed: all.filter((a) => a.status !== 200).length,
          connections: answers.filter((a) => a.newConnection).length,
          newConnection: { p50: percentile(fresh, 50), max: Math.max(...fresh) },
        });
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

async function adminLatencies(asAdmin: (path: string) => Promise<Answer>): Promise<{ p50: number; p99: number; max: number; failed: number; connections: number }> {
  const ms: number[] = [];
  let failed = 0;
  let connections = 0;
  for (let i = 0; i < ADMIN_SAMPLES; i++) {
    const r = await asAdmin('/api/v1/nodes');
    if (r.status !== 200) failed++;
    if (r.newConnection) connections++;
    ms.push(r.ms);
  }
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), max: Math.max(...ms), failed, connections };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-overload-'));
  writeFileSync(join(dir, 'tokens.csv'), 'flood-token,flooder,1001\n');
  const server = await startServer({ command: 'apiserver', args: ['--token-auth-file', join(dir, 'tokens.csv')], wrap: RAISED_FD_LIMIT, nodeArgs: CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR] : [] });
  const r = requester(server, 2000);
  try {
    const k = kubectlFor(server.kubeconfig);
    await k.ok(['create', 'clusterrole', 'flood-reader', '--verb=get,list', '--resource=configmaps']);
    await k.ok(['create', 'clusterrolebinding', 'flood-readers', '--clusterrole=flood-reader', '--user=flooder']);
    // something to list: 50 ConfigMaps of 1 kB
    const items = Array.from({ length: 50 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, namespace: 'default' }, data: { v: 'x'.repeat(1000) } }));
    await k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
    process.stdout.write(`overload bench: one skiff apiserver (APF on, upstream's bootstrap FlowSchemas), load average ${fmt(loadavg()[0], 1)} at the start\n`);

    // 1. memory per idle watch, first: before the floods' garbage makes RSS wander
    if (IDLE_WATCHES > 0) {
      const before = rssBytes(server.proc.pid!);
      const holder = spawnIdleWatchHolder(server.kubeconfig, IDLE_WATCHES);
      const opening = performance.now();
      try {
        await holder.held;
        const held = rssBytes(server.proc.pid!);
        const seconds = (performance.now() - opening) / 1000;
        const perWatch = (held - before) / IDLE_WATCHES;
        const admin = await adminLatencies(r.asAdmin);
        process.stdout.write(`\n1. ${IDLE_WATCHES} idle watches (HTTP/1.1, one TLS connection each), opened in ${fmt(seconds, 0)} s\n`);
        process.stdout.write(`   server RSS ${fmt(before / 2 ** 20, 0)} → ${fmt(held / 2 ** 20, 0)} MiB: ${fmt(perWatch / 1024)} KiB per idle watch (connection included); admin p99 while held ${fmt(admin.p99)} ms\n`);
      } finally {
        await holder.stop();
      }
    }
    // 2. the rate at which 429s begin
    process.stdout.write(`\n2. one user (global-default level, one flow) listing ${FLOOD_PATH} open-loop, ${STEP_SECONDS} s a step\n`);
    process.stdout.write('   offered/s   answered/s      200      429    other   p99 ms\n');
    let onset: number | undefined;
    for (const rate of RATES) {
      const { answers, seconds } = await openLoop(() => r.asFlooder(FLOOD_PATH), rate);
      const count = (s: number) => answers.filter((a) => a.status === s).length;
      const ok = count(200);
      const refused = count(429);
      process.stdout.write(
        `   ${String(rate).padStart(9)}   ${fmt(answers.length / seconds, 0).padStart(10)}   ${String(ok).padStart(6)}   ${String(refused).padStart(6)}   ${String(answers.length - ok - refused).padStart(6)}   ${fmt(percentile(answers.map((a) => a.ms), 99), 0).padStart(6)}\n`,
      );
      if (refused > 0 && onset === undefined) onset = rate;
      if (refused > answers.length / 2) break;
      // let the queues drain before the next step
      await adminLatencies(r.asAdmin);
    }
    if (RATES.length > 0) process.stdout.write(onset === undefined ? '   no 429 up to the highest rate offered\n' : `   429s begin at ${onset} requests/s offered\n`);

    // 3. the admin during a flood
    const quiet = await adminLatenciesApart(server);
    let flooding = true;
    const codes = new Map<number, number>();
    const flood = Array.from({ length: FLOOD_CLIENTS }, async () => {
      while (flooding) {
        const a = await r.asFlooder(FLOOD_PATH);
        codes.set(a.status, (codes.get(a.status) ?? 0) + 1);
      }
    });
    // the flood opens its connections first (500 TLS handshakes); measure once it is steady
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const floodStart = performance.now();
    const answeredBefore = [...codes.values()].reduce((a, b) => a + b, 0);
    const during = await adminLatenciesApart(server);
    const floodRate = ([...codes.values()].reduce((a, b) => a + b, 0) - answeredBefore) / ((performance.now() - floodStart) / 1000);
    const seats = /apiserver_flowcontrol_current_limit_seats\{priority_level="global-default"\} (\d+)/.exec(await r.adminText('/metrics'))?.[1] ?? '?';
    flooding = false;
    await Promise.all(flood);
    process.stdout.write(`\n3. admin GET /api/v1/nodes (kubectl get nodes), ${ADMIN_SAMPLES} in a row from a process of its own, quiet vs while the user floods with ${FLOOD_CLIENTS} clients\n`);
    process.stdout.write(`   quiet:    p50 ${fmt(quiet.p50)} ms, p99 ${fmt(quiet.p99)} ms; on a new connection each (${NEW_CONNECTION_SAMPLES}): p50 ${fmt(quiet.newConnection.p50)} ms, max ${fmt(quiet.newConnection.max)} ms\n`);
    process.stdout.write(`   flooded:  p50 ${fmt(during.p50)} ms, p99 ${fmt(during.p99)} ms, max ${fmt(during.max)} ms; on a new connection each: p50 ${fmt(during.newConnection.p50)} ms, max ${fmt(during.newConnection.max)} ms (keep-alive p99 ${fmt(during.p99 / quiet.p99, 2)}x quiet), ${during.failed} not 200; the flood's answers by code: ${JSON.stringify(Object.fromEntries(codes))}\n`);
    process.stdout.write(`   the flood was answered at ${fmt(floodRate, 0)}/s; global-default's seats at its end: ${seats} (nominal 49, scaled down while the event loop lags)\n`);

    process.stdout.write(`\nload average ${loadavg().map((l) => fmt(l, 1)).join(' / ')} at the end\n`);
  } finally {
    r.close();
    await server.stop();
    await removeDir(server.dataDir);
    rmSync(dir, { recursive: true, force: true });
  }
}
