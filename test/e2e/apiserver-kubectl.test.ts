import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { INVALID_POD, MULTI_DOC } from './fixtures.js';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

// SKIFF_E2E_STORAGE reruns this scenario on another backend (test/e2e/etcd-kubectl.test.ts sets it to etcd://…).
const storageArgs = process.env.SKIFF_E2E_STORAGE ? ['--storage', process.env.SKIFF_E2E_STORAGE] : [];

describe('skiff server driven by the real kubectl', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  const ns = 'e2e';

  before(async () => {
    // the API alone: no controller or kubelet acts on the objects this scenario inspects
    server = await startServer({ args: ['--disable', 'all', ...storageArgs] });
    k = kubectlFor(server.kubeconfig);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('serves version, api-resources and api-versions', async () => {
    const version = await k.ok(['version', '-o', 'json']);
    assert.equal(JSON.parse(version).serverVersion.minor, '32');
    const resources = await k.ok(['api-resources']);
    for (const line of [/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m, /^pods\s+po\s+v1\s+true\s+Pod$/m, /^priorityclasses\s+pc\s+scheduling.k8s.io\/v1\s+false\s+PriorityClass$/m]) {
      assert.match(resources, line);
    }
    const versions = await k.ok(['api-versions']);
    for (const gv of ['v1', 'apps/v1', 'batch/v1', 'coordination.k8s.io/v1', 'discovery.k8s.io/v1', 'events.k8s.io/v1', 'policy/v1', 'scheduling.k8s.io/v1']) {
      assert.ok(versions.split('\n').includes(gv), `api-versions lacks ${gv}:\n${versions}`);
    }
  });

  it('exposes health and Prometheus metrics', async () => {
    assert.equal(await k.ok(['get', '--raw', '/healthz']), 'ok');
    assert.match(await k.ok(['get', '--raw', '/readyz?verbose']), /\[\+\]etcd ok/);
    await k.ok(['get', 'pods', '-A']);
    const metrics = await k.ok(['get', '--raw', '/metrics']);
    assert.match(metrics, /^# TYPE apiserver_request_total counter$/m);
    assert.match(metrics, /^apiserver_request_total\{.*verb="LIST".*\} \d+$/m);
    assert.match(metrics, /^apiserver_request_duration_seconds_bucket\{.*resource="pods".*\} \d+$/m);
    assert.match(metrics, /^apiserver_storage_request_duration_seconds_count\{operation="list"\} \d+$/m);
  });

  it('has the system namespaces', async () => {
    const out = await k.ok(['get', 'namespaces', '-o', 'name']);
    for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.match(out, new RegExp(`^namespace/${n}$`, 'm'));
  });

  it('creates objects with the create subcommands (protobuf bodies)', async () => {
    assert.match(await k.ok(['create', 'namespace', ns]), /namespace\/e2e created/);
    assert.match(await k.ok(['create', 'configmap', 'cm1', '--from-literal=a=1', '--from-literal=b=2', '-n', ns]), /configmap\/cm1 created/);
    assert.match(await k.ok(['create', 'secret', 'generic', 's1', '--from-literal=user=admin', '-n', ns]), /secret\/s1 created/);
    assert.match(await k.ok(['create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=2', '-n', ns]), /deployment.apps\/web created/);
    assert.match(await k.ok(['create', 'job', 'hello', '--image=busybox', '-n', ns, '--', 'echo', 'hi']), /job.batch\/hello created/);
    const cm = await k.json<{ data: Record<string, string> }>(['get', 'configmap', 'cm1', '-n', ns]);
    assert.deepEqual(cm.data, { a: '1', b: '2' });
    const secret = await k.json<{ data: Record<string, string>; type: string }>(['get', 'secret', 's1', '-n', ns]);
    assert.equal(Buffer.from(secret.data.user, 'base64').toString(), 'admin');
    assert.equal(secret.type, 'Opaque');
    const deploy = await k.json<{ spec: { replicas: number; strategy: { type: string } }; metadata: { generation: number } }>(['get', 'deployment', 'web', '-n', ns]);
    assert.equal(deploy.spec.replicas, 2);
    assert.equal(deploy.spec.strategy.type, 'RollingUpdate');
    assert.equal(deploy.metadata.generation, 1);
    const job = await k.json<{ spec: { selector: { matchLabels: Record<string, string> } } }>(['get', 'job', 'hello', '-n', ns]);
    assert.ok(job.spec.selector.matchLabels['batch.kubernetes.io/controller-uid']);
  });

  it('creates and replaces a multi-document file', async () => {
    const out = await k.ok(['create', '-f', '-'], { input: MULTI_DOC(ns) });
    for (const o of ['deployment.apps/shop', 'service/shop', 'configmap/shop-config', 'secret/shop-secret', 'pod/shop-debug']) {
      assert.match(out, new RegExp(`${o} created`));
    }
    const svc = await k.json<{ spec: { clusterIP: string; ports: { targetPort: number; protocol: string }[] } }>(['get', 'service', 'shop', '-n', ns]);
    assert.match(svc.spec.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    assert.equal(svc.spec.ports[0].protocol, 'TCP');
    // replace needs the live objects' resourceVersions for nothing: an unconditional PUT
    const replaced = await k.ok(['replace', '-f', '-'], { input: MULTI_DOC(ns, 'nginx:1.26', 'two').replace(/---\napiVersion: v1\nkind: Pod[\s\S]*$/, '') });
    assert.match(replaced, /configmap\/shop-config replaced/);
    const cm = await k.json<{ data: { mode: string } }>(['get', 'cm', 'shop-config', '-n', ns]);
    assert.equal(cm.data.mode, 'two');
    const d = await k.json<{ metadata: { generation: number }; spec: { template: { spec: { containers: { image: string }[] } } } }>(['get', 'deploy', 'shop', '-n', ns]);
    assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.26');
    assert.equal(d.metadata.generation, 2);
    const svc2 = await k.json<{ spec: { clusterIP: string } }>(['get', 'service', 'shop', '-n', ns]);
    assert.equal(svc2.spec.clusterIP, svc.spec.clusterIP, 'replace keeps the allocated cluster IP');
  });

  it('prints tables, wide tables, yaml, json, jsonpath, labels', async () => {
    const table = await k.ok(['get', 'deployments', '-n', ns]);
    assert.match(table, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
    assert.match(table, /^shop\s+0\/2\s+0\s+0\s+\d+s$/m);
    const wide = await k.ok(['get', 'pods', '-n', ns, '-o', 'wide']);
    assert.match(wide, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/m);
    assert.match(wide, /^shop-debug\s+0\/1\s+Pending\s+0\s+\d+s\s+<none>\s+<none>\s+<none>\s+<none>$/m);
    const svc = await k.ok(['get', 'svc', '-n', ns, '-o', 'wide']);
    assert.match(svc, /^shop\s+ClusterIP\s+10\.\S+\s+<none>\s+80\/TCP\s+\d+s\s+app=shop$/m);
    const yaml = await k.ok(['get', 'configmap', 'shop-config', '-n', ns, '-o', 'yaml']);
    assert.match(yaml, /^kind: ConfigMap$/m);
    assert.match(yaml, /^ {2}mode: two$/m);
    const jp = await k.ok(['get', 'pods', '-n', ns, '-o', 'jsonpath={.items[*].metadata.name}']);
    assert.equal(jp, 'shop-debug');
    const labels = await k.ok(['get', 'pods', '-n', ns, '--show-labels']);
    assert.match(labels, /app=shop,role=debug/);
    const selected = await k.ok(['get', 'all', '-n', ns, '-l', 'app=shop', '-o', 'name']);
    assert.deepEqual(selected.trim().split('\n').sort(), ['deployment.apps/shop', 'pod/shop-debug', 'service/shop']);
    const notIn = await k.ok(['get', 'cm', '-n', ns, '-l', 'app notin (shop)', '-o', 'name']);
    assert.match(notIn, /configmap\/cm1/);
    assert.doesNotMatch(notIn, /shop-config/);
    const field = await k.ok(['get', 'pods', '-A', '--field-selector', 'status.phase=Pending', '-o', 'name']);
    assert.equal(field.trim(), 'pod/shop-debug');
    const all = await k.ok(['get', 'configmaps', '-A']);
    assert.match(all, /^NAMESPACE\s+NAME\s+DATA\s+AGE$/m);
    assert.match(all, /^e2e\s+cm1\s+2\s+\d+s$/m);
    const bad = await k.fails(['get', 'pods', '--field-selector', 'spec.bogus=x', '-n', ns]);
    assert.match(bad, /field label not supported: spec.bogus/);
  });

  it('streams changes to kubectl get -w', async () => {
    const watcher = spawn(k.bin, ['--kubeconfig', server.kubeconfig, 'get', 'configmaps', '-n', ns, '-w', '--output-watch-events'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    watcher.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await waitFor('initial watch output', () => out.includes('shop-config'));
      await k.ok(['create', 'configmap', 'watched', '--from-literal=x=y', '-n', ns]);
      await waitFor('the watch to show the new configmap', () => /ADDED\s+watched\s+1/.test(out));
      await k.ok(['label', 'configmap', 'watched', 'seen=yes', '-n', ns]);
      await waitFor('the watch to show the label change', () => /MODIFIED\s+watched/.test(out));
    } finally {
      watcher.kill();
    }
  });

  it('describes, labels, annotates, patches and scales', async () => {
    const describe = await k.ok(['describe', 'deployment', 'shop', '-n', ns]);
    assert.match(describe, /^Name:\s+shop$/m);
    assert.match(describe, /^Replicas:\s+2 desired/m);
    assert.match(describe, /StrategyType:\s+RollingUpdate/);
    const podDescribe = await k.ok(['describe', 'pod', 'shop-debug', '-n', ns]);
    assert.match(podDescribe, /^Status:\s+Pending$/m);
    assert.match(podDescribe, /^QoS Class:\s+BestEffort$/m);

    await k.ok(['label', 'deployment', 'shop', 'env=prod', '-n', ns]);
    await k.ok(['annotate', 'deployment', 'shop', 'owner=team-a', '-n', ns]);
    await k.ok(['patch', 'deployment', 'shop', '-n', ns, '--type=merge', '-p', '{"spec":{"revisionHistoryLimit":3}}']);
    await k.ok(['patch', 'configmap', 'shop-config', '-n', ns, '--type=json', '-p', '[{"op":"add","path":"/data/extra","value":"1"}]']);
    assert.match(await k.ok(['scale', 'deployment', 'shop', '--replicas=5', '-n', ns]), /scaled/);
    const d = await k.json<{ metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: { replicas: number; revisionHistoryLimit: number } }>(['get', 'deploy', 'shop', '-n', ns]);
    assert.equal(d.metadata.labels.env, 'prod');
    assert.equal(d.metadata.annotations.owner, 'team-a');
    assert.equal(d.spec.revisionHistoryLimit, 3);
    assert.equal(d.spec.replicas, 5);
    const cm = await k.json<{ data: Record<string, string> }>(['get', 'cm', 'shop-config', '-n', ns]);
    assert.equal(cm.data.extra, '1');
    const failedTest = await k.fails(['patch', 'configmap', 'shop-config', '-n', ns, '--type=json', '-p', '[{"op":"test","path":"/data/mode","value":"nope"}]']);
    assert.match(failedTest, /test/i);
  });

  it('rejects an invalid object with the upstream message', async () => {
    const err = await k.fails(['create', '-f', '-'], { input: INVALID_POD(ns) });
    assert.match(err, /The Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '\.', and must start and end with an alphanumeric character/);
    const missing = await k.fails(['create', 'configmap', 'x', '-n', 'no-such-namespace']);
    assert.match(missing, /namespaces "no-such-namespace" not found/);
    const dup = await k.fails(['create', 'configmap', 'cm1', '-n', ns]);
    assert.match(dup, /configmaps "cm1" already exists/);
  });

  it('deletes by name, by file, by label and --all', async () => {
    assert.match(await k.ok(['delete', 'configmap', 'cm1', '-n', ns]), /configmap "cm1" deleted/);
    const byFile = await k.ok(['delete', '-f', '-'], { input: MULTI_DOC(ns) });
    assert.match(byFile, /pod "shop-debug" deleted/);
    assert.match(byFile, /service "shop" deleted/);
    await k.ok(['create', 'configmap', 'l1', '--from-literal=a=b', '-n', ns]);
    await k.ok(['label', 'configmap', 'l1', 'group=g', '-n', ns]);
    assert.match(await k.ok(['delete', 'configmap', '-l', 'group=g', '-n', ns]), /configmap "l1" deleted/);
    await k.ok(['delete', 'configmaps', '--all', '-n', ns]);
    const left = await k.ok(['get', 'configmaps', '-n', ns, '-o', 'name']);
    assert.equal(left.trim(), '');
    const gone = await k.fails(['get', 'pod', 'shop-debug', '-n', ns]);
    assert.match(gone, /pods "shop-debug" not found/);
  });
});

// Not on a shared backend: these suites reuse one namespace name.
for (const version of storageArgs.length ? [] : ['1.27', '1.33']) {
  describe(`kubectl ${version} against skiff server`, () => {
    let server: ServerProcess;
    before(async () => {
      server = await startServer({ args: ['--disable', 'all'] });
    });
    after(async () => {
      await server?.stop();
      if (server) await removeDir(server.dataDir);
    });
    it('creates, lists, patches and deletes', async () => {
      const k = kubectlFor(server.kubeconfig, version);
      await k.ok(['create', 'namespace', 'v']);
      await k.ok(['create', 'deployment', 'd', '--image=nginx', '-n', 'v']);
      await k.ok(['create', '-f', '-'], { input: MULTI_DOC('v') });
      assert.match(await k.ok(['get', 'deploy', '-n', 'v']), /^shop\s+0\/2/m);
      assert.match(await k.ok(['get', 'pods', '-n', 'v', '-o', 'wide']), /^shop-debug\s+0\/1\s+Pending/m);
      await k.ok(['label', 'deploy', 'd', 'x=y', '-n', 'v']);
      await k.ok(['scale', 'deploy', 'd', '--replicas=3', '-n', 'v']);
      assert.equal(await k.ok(['get', 'deploy', 'd', '-n', 'v', '-o', 'jsonpath={.spec.replicas}']), '3');
      assert.match(await k.ok(['delete', '-f', '-'], { input: MULTI_DOC('v') }), /deployment.apps "shop" deleted/);
      assert.match(await k.ok(['api-resources']), /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    });
  });
}
