import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

describe('serviceaccount controller', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  before(async () => {
    server = await startServer({ args: ['--disable', 'kubelet,scheduler'] });
    k = kubectlFor(server.kubeconfig);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('gives every namespace a default ServiceAccount, and restores it', async () => {
    await k.ok(['create', 'namespace', 'sa-test']);
    const hasDefault = async () => (await k.exec(['get', 'serviceaccount', 'default', '-n', 'sa-test'])).code === 0;
    await waitFor('the default service account', hasDefault);
    await k.ok(['delete', 'serviceaccount', 'default', '-n', 'sa-test']);
    await waitFor('the default service account to come back', hasDefault);
    assert.match(await k.ok(['get', 'sa', '-n', 'kube-system', '-o', 'name']), /serviceaccount\/default/);
  });
});
