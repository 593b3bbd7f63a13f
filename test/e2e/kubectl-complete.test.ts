import assert from 'node:assert/strict';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, type ServerProcess } from './harness.js';

const MISSPELLED = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: typo
  namespace: kc
spec:
  replicass: 2
  selector:
    matchLabels: { app: typo }
  template:
    metadata:
      labels: { app: typo }
    spec:
      containers:
      - name: web
        image: nginx
`;

const CONFIG = (value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: dry
  namespace: kc
data:
  mode: ${value}
`;

/** A ReplicaSet as the deployment controller would leave it for one revision. */
function replicaSet(deploy: { metadata: { uid: string } }, revision: number, image: string) {
  const hash = `h${revision}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `hist-${hash}`,
      namespace: 'kc',
      labels: { app: 'hist', 'pod-template-hash': hash },
      annotations: { 'deployment.kubernetes.io/revision': String(revision) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'hist', uid: deploy.metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: 'hist', 'pod-template-hash': hash } },
      template: { metadata: { labels: { app: 'hist', 'pod-template-hash': hash } }, spec: { containers: [{ name: 'web', image }] } },
    },
  };
}

describe('kubectl-complete API (apply, edit, dry-run, validation, rollout)', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;

  before(async () => {
    // the API server alone: no controller rewrites the ReplicaSets the rollout test prepares
    server = await startServer({ command: 'apiserver' });
    k = kubectlFor(server.kubeconfig);
    await k.ok(['create', 'namespace', 'kc']);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('runs every create subcommand', async () => {
    const cmds: [string[], RegExp][] = [
      [['create', 'deployment', 'd1', '--image=nginx', '-n', 'kc'], /deployment.apps\/d1 created/],
      [['create', 'configmap', 'c1', '--from-literal=a=b', '-n', 'kc'], /configmap\/c1 created/],
      [['create', 'secret', 'generic', 's1', '--from-literal=a=b', '-n', 'kc'], /secret\/s1 created/],
      [['create', 'service', 'clusterip', 'svc1', '--tcp=80:8080', '-n', 'kc'], /service\/svc1 created/],
      [['create', 'job', 'j1', '--image=busybox', '-n', 'kc', '--', 'true'], /job.batch\/j1 created/],
      [['create', 'cronjob', 'cj1', '--image=busybox', '--schedule=*/5 * * * *', '-n', 'kc', '--', 'true'], /cronjob.batch\/cj1 created/],
      [['create', 'namespace', 'kc2'], /namespace\/kc2 created/],
      [['create', 'serviceaccount', 'sa1', '-n', 'kc'], /serviceaccount\/sa1 created/],
      [['create', 'quota', 'q1', '--hard=cpu=1,memory=1Gi,pods=4', '-n', 'kc'], /resourcequota\/q1 created/],
      [['create', 'priorityclass', 'pc1', '--value=1000', '--description=high'], /priorityclass.scheduling.k8s.io\/pc1 created/],
    ];
    for (const [args, expected] of cmds) assert.match(await k.ok(args), expected);
    const svc = await k.json<{ spec: { ports: { port: number; targetPort: number }[] } }>(['get', 'svc', 'svc1', '-n', 'kc']);
    assert.deepEqual([svc.spec.ports[0].port, svc.spec.ports[0].targetPort], [80, 8080]);
    const quota = await k.json<{ spec: { hard: Record<string, string> } }>(['get', 'quota', 'q1', '-n', 'kc']);
    assert.deepEqual(quota.spec.hard, { cpu: '1', memory: '1Gi', pods: '4' });
    assert.equal(await k.ok(['get', 'pc', 'pc1', '-o', 'jsonpath={.value}']), '1000');
  });

  it('rejects a misspelled field with the upstream message, and warns with --validate=warn', async () => {
    const err = await k.fails(['apply', '-f', '-'], { input: MISSPELLED });
    assert.match(err, /unknown field "spec.replicass"/);
    assert.match((await k.exec(['get', 'deploy', 'typo', '-n', 'kc'])).stderr, /not found/);
    const warned = await k.exec(['apply', '--validate=warn', '-f', '-'], { input: MISSPELLED });
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stderr, /Warning: unknown field "spec.replicass"/);
    const d = await k.json<{ spec: Record<string, unknown> }>(['get', 'deploy', 'typo', '-n', 'kc']);
    assert.equal(d.spec.replicas, 1, 'the unknown field was dropped and replicas defaulted');
    assert.equal(d.spec.replicass, undefined);
  });

  it('stores nothing on --dry-run=server', async () => {
    assert.match(await k.ok(['apply', '--dry-run=server', '-f', '-'], { input: CONFIG('one') }), /configmap\/dry created \(server dry run\)/);
    assert.match((await k.exec(['get', 'cm', 'dry', '-n', 'kc'])).stderr, /not found/);
    await k.ok(['apply', '-f', '-'], { input: CONFIG('one') });
    assert.match(await k.ok(['apply', '--dry-run=server', '-f', '-'], { input: CONFIG('two') }), /configured \(server dry run\)/);
    assert.equal(await k.ok(['get', 'cm', 'dry', '-n', 'kc', '-o', 'jsonpath={.data.mode}']), 'one');
    assert.match(await k.ok(['delete', 'cm', 'dry', '-n', 'kc', '--dry-run=server']), /deleted \(server dry run\)/);
    assert.equal(await k.ok(['get', 'cm', 'dry', '-n', 'kc', '-o', 'jsonpath={.data.mode}']), 'one');
  });

  it('edits with KUBE_EDITOR', async () => {
    const script = join(server.dataDir, 'editor.sh');
    await writeFile(script, '#!/bin/sh\nsed -i "s/mode: one/mode: edited/" "$1"\n');
    await chmod(script, 0o755);
    assert.match(await k.ok(['edit', 'cm', 'dry', '-n', 'kc'], { env: { KUBE_EDITOR: script } }), /configmap\/dry edited/);
    assert.equal(await k.ok(['get', 'cm', 'dry', '-n', 'kc', '-o', 'jsonpath={.data.mode}']), 'edited');
  });

  it('reads rollout history and undoes to a revision', async () => {
    await k.ok(['create', 'deployment', 'hist', '--image=nginx:1.3', '-n', 'kc']);
    const deploy = await k.json<{ metadata: { uid: string } }>(['get', 'deploy', 'hist', '-n', 'kc']);
    for (const [rev, image] of [[1, 'nginx:1.1'], [2, 'nginx:1.2'], [3, 'nginx:1.3']] as const) {
      await k.ok(['create', '-f', '-'], { input: JSON.stringify(replicaSet(deploy, rev, image)) });
    }
    await k.ok(['annotate', 'deploy', 'hist', 'deployment.kubernetes.io/revision=3', '-n', 'kc']);
    const history = await k.ok(['rollout', 'history', 'deployment/hist', '-n', 'kc']);
    assert.match(history, /^REVISION\s+CHANGE-CAUSE$/m);
    for (const rev of ['1', '2', '3']) assert.match(history, new RegExp(`^${rev}\\s+<none>$`, 'm'));
    const rev1 = await k.ok(['rollout', 'history', 'deployment/hist', '-n', 'kc', '--revision=1']);
    assert.match(rev1, /Image:\s+nginx:1.1/);
    assert.match(await k.ok(['rollout', 'undo', 'deployment/hist', '--to-revision=1', '-n', 'kc']), /rolled back/);
    assert.equal(await k.ok(['get', 'deploy', 'hist', '-n', 'kc', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']), 'nginx:1.1');
  });
});
