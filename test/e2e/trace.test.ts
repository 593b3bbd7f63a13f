import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ObjectTrace, SpanRecord, TraceRecord } from '../../src/trace/journey.js';
import { kubectlFor, removeDir, ROOT, run, startServer, waitFor, type ServerProcess } from './harness.js';

/**
 * Issue 18's walk as one causal trace: kubectl create deployment → API
 * server stages → deployment controller → ReplicaSet → ReplicaSet controller
 * → pods → scheduler → bind → kubelet → status write, read back with
 * `skiff trace deployment/web --output json`.
 */
describe('skiff trace', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  const skiffTrace = async (...args: string[]) => {
    const r = await run(process.execPath, [join(ROOT, 'bin/skiff.js'), 'trace', ...args], { env: { KUBECONFIG: server.kubeconfig } });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };

  before(async () => {
    server = await startServer({ timeoutMs: 120_000 });
    k = kubectlFor(server.kubeconfig);
    await waitFor('the node to be Ready', async () => /\sReady\s/.test(await k.ok(['get', 'nodes'])), 60_000);
    // every component has listed and is watching once a first Deployment has rolled out
    await k.ok(['create', 'deployment', 'warmup', '--image=busybox', '--', 'sleep', '3600']);
    await k.ok(['rollout', 'status', 'deployment/warmup', '--timeout=90s']);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('follows a Deployment from kubectl to every pod’s status write, the endpoints and the proxy rules in one trace', async () => {
    // a Service first: the pods' readiness then reaches its EndpointSlice, its Endpoints and kube-proxy within the Deployment's journey
    await k.ok(['create', 'service', 'clusterip', 'web', '--tcp=80:8080']);
    await k.ok(['create', 'deployment', 'web', '--image=busybox', '--replicas=3', '--', 'sh', '-c', 'sleep 3600']);
    assert.match(await k.ok(['rollout', 'status', 'deployment/web', '--timeout=90s']), /successfully rolled out/);
    const pods = (await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}'])).trim().split(/\s+/);
    assert.equal(pods.length, 3);

    // spans end as their work ends: wait until every pod's status write is in and every parent is present
    let journey: TraceRecord | undefined;
    let byId = new Map<string, SpanRecord>();
    await waitFor('a complete journey', async () => {
      const trace = JSON.parse(await skiffTrace('deployment/web', '--output', 'json')) as ObjectTrace;
      assert.equal(trace.kind, 'ObjectTrace');
      journey = trace.traces.find((t) => t.spans.some((s) => s.hop === 'request' && s.name === 'create deployments.apps' && !s.parentSpanId));
      if (!journey) return false;
      byId = new Map(journey.spans.map((s) => [s.spanId, s]));
      const complete = journey.spans.every((s) => !s.parentSpanId || byId.has(s.parentSpanId));
      const statuses = pods.every((p) => journey!.spans.some((s) => s.hop === 'status' && ancestors(s).some((a) => a.hop === 'sync' && a.attributes['k8s.object.name'] === p)));
      const proxied = journey.spans.some((s) => s.hop === 'proxy');
      return complete && statuses && proxied;
    }, 60_000, 500);
    const t = journey!;

    function ancestors(s: SpanRecord): SpanRecord[] {
      const out: SpanRecord[] = [];
      for (let p = s.parentSpanId ? byId.get(s.parentSpanId) : undefined; p; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) out.push(p);
      return out;
    }
    const child = (parent: SpanRecord, match: (s: SpanRecord) => boolean): SpanRecord => {
      const found = t.spans.find((s) => s.parentSpanId === parent.spanId && match(s));
      assert.ok(found, `a child of "${parent.name}" (${parent.component})`);
      return found;
    };

    // parent/child links are consistent: one root, every other span's parent in the trace, all one trace id
    const roots = t.spans.filter((s) => !s.parentSpanId);
    assert.equal(roots.length, 1);
    for (const s of t.spans) assert.equal(s.traceId, t.traceId);
    assert.equal(t.criticalPath[0], roots[0].spanId);

    // kubectl → API server: each stage, then the commit with its resourceVersion
    const create = roots[0];
    assert.equal(create.component, 'kube-apiserver');
    assert.equal(create.initiator, 'client');
    for (const hop of ['authentication', 'authorization', 'admission', 'validation']) child(create, (s) => s.hop === hop);
    const commit = child(create, (s) => s.hop === 'storage');
    assert.match(String(commit.attributes['k8s.resource_version']), /^\d+$/);

    // → the deployment controller, told by its watch
    const delivery = child(commit, (s) => s.hop === 'watch' && s.component === 'kube-controller-manager');
    assert.equal(delivery.initiator, 'watch');
    assert.equal(delivery.attributes['k8s.kind'], 'Deployment');
    assert.equal(delivery.attributes['k8s.resource_version'], commit.attributes['k8s.resource_version']);
    const deploymentReconcile = child(delivery, (s) => s.hop === 'reconcile' && s.attributes['skiff.controller'] === 'deployment');
    const rsCreate = child(deploymentReconcile, (s) => s.hop === 'request' && s.name === 'create replicasets.apps');
    const rsCommit = child(rsCreate, (s) => s.hop === 'storage');
    const rsDelivery = child(rsCommit, (s) => s.hop === 'watch' && s.component === 'kube-controller-manager' && s.attributes['k8s.kind'] === 'ReplicaSet');

    // → the ReplicaSet controller creates the pods (one reconcile, or a few: each a child of a ReplicaSet write's delivery)
    const podCreates = t.spans.filter((s) => s.hop === 'request' && s.name === 'create pods');
    assert.ok(podCreates.length >= 3, `${podCreates.length} pod creates`);
    for (const pc of podCreates) {
      const reconcile = byId.get(pc.parentSpanId!)!;
      assert.equal(reconcile.attributes['skiff.controller'], 'replicaset');
      assert.ok(ancestors(pc).includes(rsDelivery) || ancestors(reconcile).some((a) => a.hop === 'watch'), 'a ReplicaSet reconcile caused by a watch delivery');
    }

    // each pod: scheduler (watch, queue wait, cycle, bind) → kubelet (watch, sync, sandbox, container start, status write)
    for (const pod of pods) {
      const sync = t.spans.find((s) => s.hop === 'sync' && s.attributes['k8s.object.name'] === pod);
      assert.ok(sync, `the kubelet's sync of ${pod}`);
      assert.equal(sync.component, 'kubelet');
      const kubeletDelivery = byId.get(sync.parentSpanId!)!;
      assert.equal(kubeletDelivery.hop, 'watch');
      assert.equal(kubeletDelivery.component, 'kubelet');
      const chain = ancestors(sync);
      const hopsOf = (component: string) => chain.filter((s) => s.component === component).map((s) => s.hop);
      assert.ok(['bind', 'schedule', 'queue', 'watch'].every((h) => hopsOf('kube-scheduler').includes(h)), `${pod}: scheduler hops ${hopsOf('kube-scheduler').join(',')}`);
      assert.ok(chain.some((s) => s.hop === 'request' && s.name === 'create pods/binding'), `${pod}: the binding write`);
      assert.ok(chain.includes(deploymentReconcile) && chain.includes(create), `${pod}: back to kubectl's create`);
      const schedule = chain.find((s) => s.hop === 'schedule')!;
      assert.equal(schedule.attributes['k8s.node.name'], chain.find((s) => s.hop === 'bind')!.attributes['k8s.node.name']);
      // the scheduler's per-plugin verdicts: each filter plugin's on the chosen node; rejections of other nodes and score plugins' scores where the cluster has them
      const verdicts = schedule.events.filter((e) => e.name === 'filter' && e.attributes['k8s.node.name'] === schedule.attributes['k8s.node.name']);
      for (const plugin of ['NodeResourcesFit', 'NodeUnschedulable', 'TaintToleration']) {
        assert.ok(verdicts.some((e) => e.attributes['skiff.plugin'] === plugin && e.attributes['skiff.verdict'] === 'Success'), `${pod}: ${plugin}'s verdict`);
      }
      assert.equal(schedule.attributes['skiff.nodes.feasible'], Number(schedule.attributes['skiff.nodes.feasible']));
      for (const e of schedule.events.filter((x) => x.name === 'score')) assert.match(String(e.attributes['skiff.scores']), /=\d+/);
      // the image pull, where the runtime pulls images (containerd; the process runtime has no images)
      for (const pull of t.spans.filter((s) => s.hop === 'image-pull' && s.parentSpanId === sync.spanId)) assert.equal(pull.attributes['container.image.name'], 'busybox');
      child(sync, (s) => s.hop === 'sandbox');
      child(sync, (s) => s.hop === 'container-start');
      const status = child(sync, (s) => s.hop === 'status');
      const statusWrite = child(status, (s) => s.hop === 'request' && /pods\/status$/.test(s.name));
      child(statusWrite, (s) => s.hop === 'storage');
    }

    // → endpoints controllers → kube-proxy: a ready pod's status write → EndpointSlice (and Endpoints) writes → the proxy programs its rules
    const writtenBy = (resource: RegExp) => t.spans.filter((s) => s.hop === 'request' && resource.test(s.name) && /^(create|update|patch)/.test(s.name));
    const sliceWrites = writtenBy(/ endpointslices\.discovery\.k8s\.io$/);
    assert.ok(sliceWrites.length > 0, 'an EndpointSlice write in the journey');
    for (const w of sliceWrites) {
      const reconcile = byId.get(w.parentSpanId!)!;
      assert.equal(reconcile.hop, 'reconcile');
      assert.match(String(reconcile.attributes['skiff.controller']), /endpoint_?slice/);
      assert.ok(ancestors(reconcile).some((a) => a.hop === 'watch' && a.attributes['k8s.kind'] === 'Pod'), 'the EndpointSlice controller acted on a pod’s watch delivery');
    }
    const endpointsWrites = writtenBy(/ endpoints$/);
    assert.ok(endpointsWrites.length > 0, 'an Endpoints write in the journey');
    assert.match(String(byId.get(endpointsWrites[0].parentSpanId!)!.attributes['skiff.controller']), /endpoint/);
    const program = t.spans.find((s) => s.hop === 'proxy')!;
    assert.equal(program.component, 'kube-proxy');
    const programChain = ancestors(program);
    assert.equal(programChain[0].hop, 'watch');
    assert.equal(programChain[0].component, 'kube-proxy');
    assert.ok(programChain.some((a) => sliceWrites.includes(a) || (a.hop === 'request' && / endpointslices\.discovery\.k8s\.io$/.test(a.name))), 'kube-proxy programmed rules for an EndpointSlice write');
    assert.ok(programChain.includes(create), 'back to kubectl’s create');

    // the text rendering has the timeline, the sequence diagram and the critical path
    const text = await skiffTrace('deployment/web');
    for (const heading of ['Timeline', 'Sequence:', 'Critical path']) assert.ok(text.includes(heading), heading);
    assert.match(text, /kube-apiserver\s+kube-controller-manager\s+kube-scheduler\s+kubelet/);
  });

  it('the Service’s journey reaches the cluster DNS’s first answer for it', async () => {
    // the DNS server publishes where it listens in the kube-dns EndpointSlice (inside skiff server: a free port)
    const slices = await k.json<{ items: { endpoints?: { addresses: string[] }[]; ports?: { name?: string; port?: number }[] }[] }>(['get', 'endpointslices', '-n', 'kube-system', '-l', 'kubernetes.io/service-name=kube-dns']);
    const slice = slices.items.find((s) => s.endpoints?.length && s.ports?.some((p) => p.name === 'dns'));
    assert.ok(slice, 'the DNS server published its endpoint');
    const resolver = new Resolver({ timeout: 2000, tries: 2 });
    resolver.setServers([`${slice.endpoints![0].addresses[0]}:${slice.ports!.find((p) => p.name === 'dns')!.port}`]);
    await waitFor('an answer for web.default.svc.cluster.local', async () => (await resolver.resolve4('web.default.svc.cluster.local').catch(() => [])).length > 0, 30_000, 500);
    // the first answer after the Service's changes is one span, caused by those changes' watch deliveries
    let answer: SpanRecord | undefined;
    let links: string[] = [];
    await waitFor('the DNS answer in a journey', async () => {
      for (const what of ['service/web', 'deployment/web']) {
        const trace = JSON.parse(await skiffTrace(what, '--output', 'json')) as ObjectTrace;
        const spans = trace.traces.flatMap((t) => t.spans);
        answer = spans.find((s) => s.hop === 'dns' && s.attributes['k8s.object.name'] === 'web');
        if (answer) {
          links = answer.links.map((l) => l.spanId);
          return true;
        }
      }
      return false;
    }, 30_000, 500);
    assert.equal(answer!.component, 'dns');
    assert.equal(answer!.attributes['dns.question.name'], 'web.default.svc.cluster.local');
    assert.ok(answer!.parentSpanId && links.includes(answer!.parentSpanId) || links.length > 0, 'caused by the Service’s changes');
    // one of its causes is the delivery of a write to the Service: the Service's own trace holds it
    const serviceTrace = JSON.parse(await skiffTrace('service/web', '--output', 'json')) as ObjectTrace;
    const serviceSpans = new Set(serviceTrace.traces.flatMap((t) => t.spans.map((s) => s.spanId)));
    assert.ok(links.some((l) => serviceSpans.has(l)) || serviceSpans.has(answer!.spanId), 'linked to the Service’s trace');
  });

  it('says so for an object without a trace', async () => {
    const out = await skiffTrace('configmap/never-written', '-n', 'default');
    assert.match(out, /no trace recorded for configmaps "never-written"/);
  });

  it('prints a server’s refusal without a stack trace', async () => {
    // a ServiceAccount no role binds: it may not get the Deployment, so not its trace either
    await k.ok(['create', 'serviceaccount', 'nobody', '-n', 'default']);
    const token = (await k.ok(['create', 'token', 'nobody', '-n', 'default'])).trim();
    const kubeconfig = join(server.dataDir, 'nobody.kubeconfig');
    await copyFile(server.kubeconfig, kubeconfig);
    const nobody = kubectlFor(kubeconfig);
    await nobody.ok(['config', 'set-credentials', 'nobody', `--token=${token}`]);
    await nobody.ok(['config', 'set-context', '--current', '--user=nobody']);
    const r = await run(process.execPath, [join(ROOT, 'bin/skiff.js'), 'trace', 'deployment/web', '-n', 'default'], { env: { KUBECONFIG: kubeconfig } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^Error from server \(Forbidden\): .*forbidden/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  });
});
