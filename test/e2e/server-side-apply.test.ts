import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, type ServerProcess } from './harness.js';

const NS = 'ssa';

const deployment = (replicas: number, labels = 'app: web, tier: front') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${NS}
  labels: { ${labels} }
spec:
  replicas: ${replicas}
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
      - name: web
        image: nginx:1.25
`;

const configMap = (value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${NS}
data:
  mode: "${value}"
`;

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
}

describe('server-side apply with the real kubectl', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;

  const managedFields = async (kind: string, name: string): Promise<Entry[]> => {
    const out = await k.ok(['get', kind, name, '-n', NS, '-o', 'json', '--show-managed-fields']);
    return (JSON.parse(out) as { metadata: { managedFields?: Entry[] } }).metadata.managedFields ?? [];
  };
  /** Whether a FieldsV1 trie names `element` (e.g. `f:replicas`, `k:{"name":"web"}`) anywhere. */
  const names = (fields: unknown, element: string): boolean =>
    typeof fields === 'object' && fields !== null && Object.entries(fields).some(([k, v]) => k === element || names(v, element));
  const owns = (e: Entry | undefined, element: string) => !!e && names(e.fieldsV1, element);

  before(async () => {
    server = await startServer();
    k = kubectlFor(server.kubeconfig);
    await k.ok(['create', 'namespace', NS]);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('creates with apply and records kubectl as an Apply manager', async () => {
    assert.match(await k.ok(['apply', '--server-side', '-f', '-'], { input: deployment(2) }), /deployment.apps\/web serverside-applied/);
    const entries = await managedFields('deployment', 'web');
    const mine = entries.find((e) => e.manager === 'kubectl' && e.operation === 'Apply');
    assert.ok(mine, `no kubectl Apply entry in ${JSON.stringify(entries)}`);
    assert.equal(mine.apiVersion, 'apps/v1');
    assert.equal(mine.fieldsType, 'FieldsV1');
    assert.match(mine.time ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(owns(mine, 'f:replicas'));
    assert.ok(owns(mine, 'k:{"name":"web"}'));
    // Plain output hides managedFields; --show-managed-fields shows them as YAML.
    assert.doesNotMatch(await k.ok(['get', 'deployment', 'web', '-n', NS, '-o', 'yaml']), /managedFields/);
    assert.match(await k.ok(['get', 'deployment', 'web', '-n', NS, '-o', 'yaml', '--show-managed-fields']), /manager: kubectl\n\s+operation: Apply/);
  });

  it('a pod created by apply gets spec.priority from its PriorityClass, as one created by create', async () => {
    await k.ok(['apply', '--server-side', '-f', '-'], {
      input: 'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: ssa-high\nvalue: 4242\npreemptionPolicy: Never\n',
    });
    const pod = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${NS}
spec:
  priorityClassName: ssa-high
  containers:
  - name: c
    image: busybox
`;
    await k.ok(['create', '-f', '-'], { input: pod('created') });
    await k.ok(['apply', '--server-side', '-f', '-'], { input: pod('applied') });
    const priority = async (name: string) => k.ok(['get', 'pod', name, '-n', NS, '-o', 'jsonpath={.spec.priority} {.spec.preemptionPolicy}']);
    assert.equal(await priority('created'), '4242 Never');
    assert.equal(await priority('applied'), '4242 Never');
    // a class that does not exist refuses the pod either way, and nothing is stored
    const missing = pod('missing').replace('ssa-high', 'no-such-class');
    assert.match(await k.fails(['apply', '--server-side', '-f', '-'], { input: missing }), /pods "missing" is forbidden: no PriorityClass with name no-such-class was found/);
    assert.match(await k.fails(['get', 'pod', 'missing', '-n', NS]), /NotFound|not found/);
  });

  it('refuses a second manager changing an owned field, until it forces', async () => {
    const err = await k.fails(['apply', '--server-side', '--field-manager=other', '-f', '-'], { input: deployment(3) });
    assert.match(err, /Apply failed with 1 conflict: conflict with "kubectl": \.spec\.replicas/);
    assert.match(err, /--force-conflicts/);
    const unchanged = await k.json<{ spec: { replicas: number } }>(['get', 'deployment', 'web', '-n', NS]);
    assert.equal(unchanged.spec.replicas, 2);

    await k.ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'], { input: deployment(3) });
    const forced = await k.json<{ spec: { replicas: number } }>(['get', 'deployment', 'web', '-n', NS]);
    assert.equal(forced.spec.replicas, 3);
    const entries = await managedFields('deployment', 'web');
    const kubectl = entries.find((e) => e.manager === 'kubectl');
    const other = entries.find((e) => e.manager === 'other');
    assert.ok(owns(other, 'f:replicas'));
    assert.ok(!owns(kubectl, 'f:replicas'), 'the forced field left its previous owner');
    assert.ok(owns(kubectl, 'f:image') && owns(other, 'f:image'), 'equal values are co-owned');
  });

  it('removes a field its only applier stops applying, keeps one another manager applies', async () => {
    await k.ok(['apply', '--server-side', '-f', '-'], { input: deployment(3, 'app: web, tier: front, extra: x') });
    const withExtra = await k.json<{ metadata: { labels: Record<string, string> } }>(['get', 'deployment', 'web', '-n', NS]);
    assert.equal(withExtra.metadata.labels.extra, 'x');
    // kubectl drops both extra (only it applied that) and tier (`other` applies it too).
    await k.ok(['apply', '--server-side', '-f', '-'], { input: deployment(3, 'app: web') });
    const d = await k.json<{ metadata: { labels: Record<string, string> } }>(['get', 'deployment', 'web', '-n', NS]);
    assert.deepEqual(d.metadata.labels, { app: 'web', tier: 'front' });
  });

  it('records imperative writes as Update managers', async () => {
    await k.ok(['label', 'deployment', 'web', '-n', NS, 'team=blue']);
    const label = (await managedFields('deployment', 'web')).find((e) => e.manager === 'kubectl-label');
    assert.equal(label?.operation, 'Update');
    assert.ok(owns(label, 'f:team'));
  });

  it('upgrades an object from client-side apply without conflicts', async () => {
    await k.ok(['apply', '-f', '-'], { input: configMap('one') });
    const before = await managedFields('configmap', 'settings');
    assert.ok(before.some((e) => e.manager === 'kubectl-client-side-apply' && e.operation === 'Update'), JSON.stringify(before));

    assert.match(await k.ok(['apply', '--server-side', '-f', '-'], { input: configMap('two') }), /configmap\/settings serverside-applied/);
    const cm = await k.json<{ data: Record<string, string> }>(['get', 'configmap', 'settings', '-n', NS]);
    assert.equal(cm.data.mode, 'two');
    const entries = await managedFields('configmap', 'settings');
    assert.ok(owns(entries.find((e) => e.manager === 'kubectl' && e.operation === 'Apply'), 'f:mode'));
    assert.ok(!entries.some((e) => e.manager === 'kubectl-client-side-apply'), `kubectl migrates the client-side apply entry: ${JSON.stringify(entries)}`);
  });
});
