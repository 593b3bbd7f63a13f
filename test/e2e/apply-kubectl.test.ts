import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, type ServerProcess } from './harness.js';

// Client-side `kubectl apply`, `patch`, `diff` and `apply --prune` against
// skiff: every change travels as a strategic merge patch.

interface Knobs {
  image: string;
  envValue: string;
  ports: number[];
  withConfig: boolean;
}

function manifest(ns: string, k: Knobs): string {
  const ports = k.ports.map((p) => `        - containerPort: ${p}\n          name: p${p}\n`).join('');
  const docs = [
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: x
  namespace: ${ns}
  labels: {app: x}
spec:
  replicas: 1
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec:
      containers:
      - name: web
        image: ${k.image}
        env:
        - {name: MODE, value: "${k.envValue}"}
        - {name: LEVEL, value: "info"}
        ports:
${ports}        resources:
          limits: {memory: 64Mi}
      - name: sidecar
        image: busybox:1
        args: [sleep, "3600"]
`,
    `apiVersion: v1
kind: Service
metadata:
  name: x
  namespace: ${ns}
  labels: {app: x}
spec:
  selector: {app: x}
  ports:
  - {name: http, port: 80, targetPort: 8080}
`,
  ];
  if (k.withConfig) {
    docs.push(`apiVersion: v1
kind: ConfigMap
metadata:
  name: x-config
  namespace: ${ns}
  labels: {app: x}
data: {greeting: hello}
`);
    docs.push(`apiVersion: v1
kind: Secret
metadata:
  name: x-secret
  namespace: ${ns}
  labels: {app: x}
data: {token: czNjcmV0}
`);
  }
  return docs.join('---\n');
}

interface Container {
  name: string;
  image: string;
  env?: { name: string; value: string }[];
  ports?: { containerPort: number; name?: string; protocol?: string }[];
  resources?: unknown;
  args?: string[];
}
interface Deployment {
  metadata: { generation: number; annotations?: Record<string, string> };
  spec: { template: { spec: { containers: Container[] } } };
}

const PRUNE_ALLOWLIST = ['core/v1/ConfigMap', 'core/v1/Secret', 'core/v1/Service', 'apps/v1/Deployment'].flatMap((gvk) => ['--prune-allowlist', gvk]);

describe('kubectl apply, patch, diff and prune against skiff', () => {
  let server: ServerProcess;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  for (const version of [undefined, '1.27', '1.33']) {
    const label = version ?? 'default';
    describe(`with kubectl ${label}`, () => {
      const ns = `apply-${label.replace('.', '-')}`;
      let k: ReturnType<typeof kubectlFor>;
      const base: Knobs = { image: 'nginx:1.25', envValue: 'a', ports: [8080, 9090], withConfig: true };
      const containers = async () => (await k.json<Deployment>(['get', 'deployment', 'x', '-n', ns])).spec.template.spec.containers;

      before(async () => {
        k = kubectlFor(server.kubeconfig, version);
        await k.ok(['create', 'namespace', ns]);
      });

      it('applies a multi-document file, then finds it unchanged', async () => {
        const created = await k.ok(['apply', '-f', '-'], { input: manifest(ns, base) });
        for (const o of ['deployment.apps/x', 'service/x', 'configmap/x-config', 'secret/x-secret']) assert.match(created, new RegExp(`^${o} created$`, 'm'));
        const again = await k.ok(['apply', '-f', '-'], { input: manifest(ns, base) });
        for (const o of ['deployment.apps/x', 'service/x', 'configmap/x-config', 'secret/x-secret']) assert.match(again, new RegExp(`^${o} unchanged$`, 'm'));
      });

      it('applies a changed image, env var and port, touching nothing else', async () => {
        const before = await containers();
        const changed = { ...base, image: 'nginx:1.27', envValue: 'b', ports: [8080, 9191] };
        const out = await k.ok(['apply', '-f', '-'], { input: manifest(ns, changed) });
        assert.match(out, /^deployment.apps\/x configured$/m);
        assert.match(out, /^service\/x unchanged$/m);
        const after = await containers();
        const expected = structuredClone(before);
        expected[0].image = 'nginx:1.27';
        expected[0].env = [
          { name: 'MODE', value: 'b' },
          { name: 'LEVEL', value: 'info' },
        ];
        expected[0].ports = [
          { containerPort: 8080, name: 'p8080', protocol: 'TCP' },
          { containerPort: 9191, name: 'p9191', protocol: 'TCP' },
        ];
        assert.deepEqual(after, expected);
      });

      it('removes a container port dropped from the file', async () => {
        const out = await k.ok(['apply', '-f', '-'], { input: manifest(ns, { ...base, image: 'nginx:1.27', envValue: 'b', ports: [8080] }) });
        assert.match(out, /^deployment.apps\/x configured$/m);
        const [web] = await containers();
        assert.deepEqual(web.ports, [{ containerPort: 8080, name: 'p8080', protocol: 'TCP' }]);
      });

      it('patches one container by name, keeping its other fields and the other container', async () => {
        const before = await containers();
        await k.ok(['patch', 'deployment', 'x', '-n', ns, '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}']);
        const after = await containers();
        const expected = structuredClone(before);
        expected[0].image = 'nginx:2';
        assert.deepEqual(after, expected);
      });

      it('shows the pending change with kubectl diff', async () => {
        const r = await k.exec(['diff', '-f', '-'], { input: manifest(ns, { ...base, image: 'nginx:1.28', envValue: 'b', ports: [8080] }) });
        assert.equal(r.code, 1, `kubectl diff should report a difference:\n${r.stderr}${r.stdout}`);
        assert.match(r.stdout, /^-\s+image: nginx:2$/m);
        assert.match(r.stdout, /^\+\s+image: nginx:1\.28$/m);
        // a dry run: nothing changed
        assert.equal((await containers())[0].image, 'nginx:2');
      });

      it('prunes labelled objects no longer in the file', async () => {
        const out = await k.ok(['apply', '--prune', '-l', 'app=x', ...PRUNE_ALLOWLIST, '-f', '-'], {
          input: manifest(ns, { ...base, image: 'nginx:1.27', envValue: 'b', ports: [8080], withConfig: false }),
        });
        assert.match(out, /^configmap\/x-config pruned$/m);
        assert.match(out, /^secret\/x-secret pruned$/m);
        const left = await k.ok(['get', 'deployments,services,configmaps,secrets', '-n', ns, '-l', 'app=x', '-o', 'name']);
        assert.deepEqual(left.trim().split('\n').sort(), ['deployment.apps/x', 'service/x']);
      });
    });
  }
});
