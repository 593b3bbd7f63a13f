/**
 * `npm run soak -- --minutes N [--storage sqlite|etcd] [--seed S] [--keep] [--no-disk-full]`:
 * a multi-process cluster under a mixed workload while components are
 * killed and paused at random and (as root) the storage's disk is filled;
 * invariants are checked all along and at the end. Exits 1 on any
 * invariant violation.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiClient } from './api-client.js';
import { SoakCluster, type StorageKind } from './cluster.js';
import { unconverged } from './convergence.js';
import { DiskProbe, diskFullViolations } from './disk-probe.js';
import { FaultInjector } from './fault-injector.js';
import { checkOrdinals, checkServiceAllocations, PodBindingCheck, Violations } from './invariant-checks.js';
import { NAMESPACE } from './manifests.js';
import { findProcesses } from './proc-scan.js';
import { formatReport } from './report.js';
import { randomSeed, Rng } from './rng.js';
import { diskFaultUnsupported } from './scratch-disk.js';
import { sleep } from './sleep.js';
import { WatchAuditor } from './watch-auditor.js';
import { Workload } from './workload.js';
import { WriteLedger } from './write-ledger.js';
import { Writer } from './writer.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    storage: { type: 'string', default: 'sqlite' },
    seed: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'converge-timeout': { type: 'string', default: '300' },
    'no-disk-full': { type: 'boolean', default: false },
  },
});
const minutes = Number(values.minutes);
const storage = values.storage as StorageKind;
if (!(minutes > 0) || !['sqlite', 'etcd'].includes(storage)) {
  process.stderr.write('usage: npm run soak -- --minutes N [--storage sqlite|etcd] [--seed S] [--keep] [--no-disk-full]\n');
  process.exit(2);
}
const seed = values.seed === undefined ? randomSeed() : Number(values.seed);
const log = (msg: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
log(`soak seed ${seed} (repeat with --seed ${seed}), storage ${storage}, ${minutes} min`);

const rng = new Rng(seed);
const runId = `${seed}-${process.pid}`;
const loadAtStart = loadavg();
const dir = await mkdtemp(join(tmpdir(), 'skiff-soak-'));
// the disk-full fault needs a file system of its own to fill: root and a tmpfs mount; CI (SKIFF_REQUIRE_ALL=1) must have them
const diskFullOff = values['no-disk-full'] ? 'turned off with --no-disk-full' : diskFaultUnsupported(dir);
if (diskFullOff) {
  log(`disk-full fault disabled: ${diskFullOff}`);
  if (process.env.SKIFF_REQUIRE_ALL === '1' && !values['no-disk-full']) {
    process.stderr.write('SKIFF_REQUIRE_ALL is set but the disk-full fault cannot run\n');
    await rm(dir, { recursive: true, force: true });
    process.exit(1);
  }
}
const cluster = new SoakCluster({ dir, storage, runId, diskFaults: !diskFullOff });
const violations = new Violations();
const ledger = new WriteLedger();
const watchers: WatchAuditor[] = [];
const stopAll = new AbortController();
process.once('SIGINT', () => stopAll.abort());
let injector: FaultInjector | undefined;
let convergenceMs: number | undefined;
let client: ApiClient | undefined;

try {
  log(`starting the cluster in ${dir}`);
  await cluster.start();
  client = new ApiClient(join(dir, 'apiserver-0', 'admin.kubeconfig'), () => cluster.apiPorts);
  const writer = new Writer(client, ledger);
  const workload = new Workload(runId, client, writer, rng);
  await workload.setUp(stopAll.signal);
  log(`cluster up: ${cluster.components.map((c) => c.name).join(', ')}`);

  const bindings = new PodBindingCheck(violations);
  const cms = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
  watchers.push(new WatchAuditor('configmaps#1', client, cms), new WatchAuditor('configmaps#2', client, cms));
  watchers.push(new WatchAuditor('pods', client, '/api/v1/pods', (type, pod) => bindings.observe(type, pod)));
  watchers.push(new WatchAuditor('services', client, '/api/v1/services'));
  const watching = new AbortController();
  const watchRuns = watchers.map((w) => w.run(watching.signal));

  const checking = new AbortController();
  const checks = (async () => {
    for (let round = 0; !checking.signal.aborted; round++) {
      checkOrdinals(runId, violations);
      if (round % 3 === 0) await checkServiceAllocations(client!, violations).catch(() => undefined);
      await sleep(2000);
    }
  })();

  const faulting = new AbortController();
  const probe = new DiskProbe(client, writer);
  injector = new FaultInjector(rng, cluster.components, {
    minGapMs: 3000, maxGapMs: 15_000, recoveryTimeoutMs: 180_000,
    onUnrecovered: (f) => violations.add('recovers', `${f.target} did not serve again within 180 s of a ${f.kind}`),
    disks: cluster.disks,
    diskHooks: {
      whileFull: (target, until) => probe.whileFull(target, until, () => cluster.apiPorts[Number(target.name.split('-').at(-1))]),
      afterwards: () => probe.cleanUp(),
    },
    onDiskFull: (f) => {
      for (const v of diskFullViolations(f.targetKind, f.disk!)) violations.add('disk-full', `${f.target}: ${v}`);
    },
  });
  const working = new AbortController();
  const workRun = workload.run(working.signal);
  const faultRun = injector.run(faulting.signal);
  log('workload and faults running');
  const end = Date.now() + minutes * 60_000;
  while (Date.now() < end && !stopAll.signal.aborted) await sleep(Math.min(10_000, end - Date.now()));
  faulting.abort();
  working.abort();
  await Promise.all([faultRun, workRun]);
  for (const c of cluster.components) c.resume();
  log(`faults stopped after ${injector.faults.length} faults; waiting for convergence`);

  const since = Date.now();
  const deadline = since + Number(values['converge-timeout']) * 1000;
  let short: string[] = ['not checked yet'];
  let lastReport = since;
  while (Date.now() < deadline && !stopAll.signal.aborted) {
    short = await unconverged(client, cluster.nodeNames, workload.liveJobs).catch((err: Error) => [err.message]);
    if (short.length === 0) break;
    if (Date.now() - lastReport > 30_000) {
      lastReport = Date.now();
      log(`not converged yet: ${short.join('; ')}`);
    }
    await sleep(2000);
  }
  if (short.length === 0) convergenceMs = Date.now() - since;
  else violations.add('converges', `not converged ${values['converge-timeout']} s after the faults stopped: ${short.join('; ')}`);
  log(`convergence: ${convergenceMs === undefined ? 'not reached' : `${convergenceMs} ms`}`);

  // let the watchers catch up with the last acknowledged write, then stop them and look for gaps
  const acks = ledger.acks.get(cms) ?? [];
  const lastAck = Math.max(0, ...acks.map((a) => a.rv));
  const catchUp = Date.now() + 60_000;
  while (Date.now() < catchUp && watchers.slice(0, 2).some((w) => (w.segments.at(-1)?.to ?? 0) < lastAck)) await sleep(500);
  watching.abort();
  await Promise.all(watchRuns);
  for (const w of watchers) {
    for (const v of w.violations) violations.add('watch-order', v);
    if (w.collection !== cms) continue;
    for (const gap of w.gaps(acks)) violations.add('watch-gap-free', `${w.name} never saw ${gap.name} at resourceVersion ${gap.rv} inside a stretch it watched`);
  }

  // every acknowledged write read back
  for (const path of ledger.paths()) {
    let answer;
    for (let attempt = 0; attempt < 10; attempt++) {
      answer = await client.request('GET', path).catch(() => undefined);
      if (answer && (answer.status === 200 || answer.status === 404)) break;
      await sleep(1000);
    }
    if (!answer || (answer.status !== 200 && answer.status !== 404)) {
      violations.add('no-lost-write', `${path} could not be read back (${answer?.status ?? 'no answer'})`);
      continue;
    }
    const v = ledger.check(path, answer.status === 200 ? answer.json : undefined);
    if (v) violations.add('no-lost-write', `${v.path}: ${v.message}`);
  }
  await checkServiceAllocations(client, violations);
  checkOrdinals(runId, violations);
  checking.abort();
  await checks;

  // clean up through the API: the kubelets stop the pods' processes
  await client.request('DELETE', `/api/v1/namespaces/${NAMESPACE}`).catch(() => undefined);
  const podsGone = Date.now() + 120_000;
  while (Date.now() < podsGone) {
    const pods = await client.request<{ items: unknown[] }>('GET', `/api/v1/namespaces/${NAMESPACE}/pods`).catch(() => undefined);
    if (pods?.status === 200 && pods.json.items.length === 0) break;
    await sleep(1000);
  }
} catch (err) {
  violations.add('runs', `the soak itself failed: ${(err as Error).stack ?? String(err)}`);
} finally {
  stopAll.abort();
  client?.close();
  await cluster.stop();
  // no process leak: nothing started from the soak's directory, nor any pod of this run, may outlive the cluster
  const ours = () => findProcesses({ marker: dir, envKey: 'SOAK_RUN' }).filter((p) => p.cmdline.includes(dir) || p.env.get('SOAK_RUN') === runId);
  const leakDeadline = Date.now() + 15_000;
  while (ours().length > 0 && Date.now() < leakDeadline) await sleep(500);
  for (const p of ours()) {
    violations.add('no-process-leak', `pid ${p.pid} still running: ${p.cmdline.slice(0, 200)}`);
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (!values.keep && violations.count === 0) await rm(dir, { recursive: true, force: true });
  else log(`logs and data kept in ${dir}`);
}

process.stdout.write(`\n${formatReport({ seed, storage, minutes, loadAtStart, diskFullOff, ledger, watchers, injector: injector ?? new FaultInjector(rng, [], { minGapMs: 0, maxGapMs: 0, recoveryTimeoutMs: 0, onUnrecovered: () => undefined }), components: cluster.components, convergenceMs, violations })}\n`);
process.exit(violations.count === 0 ? 0 : 1);
