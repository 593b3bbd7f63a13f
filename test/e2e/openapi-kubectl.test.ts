import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MULTI_DOC } from './fixtures.js';
import { kubectlFor, removeDir, startServer, type ServerProcess } from './harness.js';

describe('OpenAPI documents driven by the real kubectl', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;

  before(async () => {
    server = await startServer();
    k = kubectlFor(server.kubeconfig);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('kubectl 1.27 creates and applies a multi-document file (it needs /openapi/v2 as protobuf)', async () => {
    const k27 = kubectlFor(server.kubeconfig, '1.27');
    await k.ok(['create', 'namespace', 'oa27']);
    const out = await k27.ok(['create', '-f', '-'], { input: MULTI_DOC('oa27') });
    for (const o of ['deployment.apps/shop', 'service/shop', 'configmap/shop-config', 'secret/shop-secret', 'pod/shop-debug']) assert.match(out, new RegExp(`${o} created`));
    await k.ok(['create', 'namespace', 'oa27b']);
    const applied = await k27.ok(['apply', '-f', '-'], { input: MULTI_DOC('oa27b') });
    assert.match(applied, /deployment.apps\/shop created/);
    const again = await k27.ok(['apply', '-f', '-'], { input: MULTI_DOC('oa27b', 'nginx:1.26', 'two') });
    assert.match(again, /deployment.apps\/shop configured/);
    assert.match(again, /configmap\/shop-config configured/);
    const d = await k.json<{ spec: { template: { spec: { containers: { image: string }[] } } } }>(['get', 'deploy', 'shop', '-n', 'oa27b']);
    assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.26');
  });

  for (const version of [undefined, '1.33']) {
    it(`kubectl ${version ?? '(default)'} explains a nested field with upstream-like text`, async () => {
      const out = await kubectlFor(server.kubeconfig, version).ok(['explain', 'deployment.spec.strategy.rollingUpdate']);
      assert.match(out, /^GROUP:\s+apps$/m);
      assert.match(out, /^KIND:\s+Deployment$/m);
      assert.match(out, /^VERSION:\s+v1$/m);
      assert.match(out, /^FIELD: rollingUpdate <RollingUpdateDeployment>$/m);
      assert.match(out, /Spec to control the desired behavior of rolling update\./);
      assert.match(out, /^ {2}maxSurge\t<IntOrString>$/m);
      assert.match(out, /^ {2}maxUnavailable\t<IntOrString>$/m);
      assert.match(out, /The maximum number of pods that can be scheduled above the desired number of\s+pods\./);
    });
  }

  it('explains pod --recursive with nested types, lists, maps and required markers', async () => {
    const out = await k.ok(['explain', 'pod', '--recursive']);
    assert.match(out, /^KIND:\s+Pod$/m);
    assert.match(out, /^DESCRIPTION:\n\s+Pod is a collection of containers that can run on a host\./m);
    for (const line of [
      /^ {2}metadata\t<ObjectMeta>$/m,
      /^ {4}labels\t<map\[string\]string>$/m,
      /^ {2}spec\t<PodSpec>$/m,
      /^ {4}containers\t<\[\]Container> -required-$/m,
      /^ {6}name\t<string> -required-$/m,
      /^ {8}limits\t<map\[string\]Quantity>$/m,
      /^ {6}livenessProbe\t<Probe>$/m,
      /^ {10}port\t<IntOrString> -required-$/m,
      /^ {2}status\t<PodStatus>$/m,
    ]) {
      assert.match(out, line);
    }
    assert.ok(out.split('\n').length > 500, 'the whole tree is printed');
  });

  it('kubectl 1.27 explains from the v2 document', async () => {
    const out = await kubectlFor(server.kubeconfig, '1.27').ok(['explain', 'deployment.spec.replicas']);
    assert.match(out, /FIELD:\s+replicas <integer>/);
    assert.match(out, /Number of desired pods/);
  });
});
