import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

describe('resource metrics: kubectl top node and top pod print numbers from metrics.k8s.io', () => {
  let server: ServerProcess;
  let kubectl: ReturnType<typeof kubectlFor>;

  before(async () => {
    server = await startServer({ args: ['--metric-resolution', '2s'] });
    kubectl = kubectlFor(server.kubeconfig);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('lists node and pod usage, per container and by label', async () => {
    await kubectl.ok(['run', 'burn', '--image=busybox', '--labels=app=burn', '--', 'sh', '-c', 'while :; do :; done']);
    const node = await waitFor('kubectl top node', async () => {
      const r = await kubectl.exec(['top', 'node']);
      return r.code === 0 && /^\S+\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%/m.test(r.stdout) ? r.stdout : undefined;
    }, 90_000, 1000);
    assert.match(node, /^NAME\s+CPU\(cores\)\s+CPU(\(%\))?\s+MEMORY\(bytes\)/);
    const pod = await waitFor('kubectl top pod -l app=burn', async () => {
      const r = await kubectl.exec(['top', 'pod', '-l', 'app=burn']);
      return r.code === 0 && /^burn\s+\d+m\s+\d+Mi/m.test(r.stdout) ? r.stdout : undefined;
    }, 90_000, 1000);
    assert.match(pod, /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)/);
    const containers = await kubectl.ok(['top', 'pod', 'burn', '--containers']);
    assert.match(containers, /^burn\s+burn\s+\d+m\s+\d+Mi/m);
    const all = await kubectl.ok(['top', 'pod', '-A']);
    assert.match(all, /^default\s+burn\s+\d+m/m);
  });
});
